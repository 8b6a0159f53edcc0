import { Button, Tag, TagGroup, TagList } from 'react-aria-components';
import { useSettings } from '../api/queries.js';
import { type ChipKey, chipsOf } from './chips.js';
import type { useQuickAdd } from './use-quick-add.js';

/** The chips of the parse and the Add button, under the box (also in the palette). */
export default function QuickAddPreview({ quick }: { quick: ReturnType<typeof useQuickAdd> }) {
  const settings = useSettings();
  if (!quick.parsed && !quick.error) return null;
  const timeZone = settings.data?.timezone ?? 'UTC';
  const chips = quick.parsed ? chipsOf(quick.parsed.fields, timeZone) : [];
  return (
    <div className="quickadd-preview">
      {quick.error && (
        <p className="notice notice-error" role="alert">
          {quick.error}
        </p>
      )}
      {quick.parsed && (
        <>
          <p className="quickadd-title">
            <span className="muted">Title</span> {quick.parsed.fields.title || quick.parsed.text}
          </p>
          <TagGroup
            aria-label="Recognised"
            className="chips"
            onRemove={(removed) => {
              for (const key of removed) quick.remove(String(key) as ChipKey);
            }}
          >
            <TagList items={chips} renderEmptyState={() => <span className="muted">Nothing else recognised</span>}>
              {(chip) => (
                <Tag id={chip.key} textValue={chip.label} className="chip">
                  {chip.label}
                  <Button slot="remove" className="chip-remove" aria-label={`Remove ${chip.label}`}>
                    ×
                  </Button>
                </Tag>
              )}
            </TagList>
          </TagGroup>
          <div className="row">
            <Button className="btn btn-primary btn-small" isDisabled={quick.busy} onPress={quick.submit}>
              Add task
            </Button>
            <Button className="btn btn-quiet btn-small" onPress={quick.clear}>
              Cancel
            </Button>
            <span className="muted small">Enter adds it</span>
          </div>
        </>
      )}
    </div>
  );
}
