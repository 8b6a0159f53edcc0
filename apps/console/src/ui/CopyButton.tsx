import { useState } from 'react';
import { Button } from 'react-aria-components';

/** Copies a text (a URL, a secret shown once) and says so in a live region. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  return (
    <span className="copy">
      <Button
        className="btn btn-small"
        onPress={() =>
          navigator.clipboard.writeText(text).then(
            () => setCopied('yes'),
            () => setCopied('no'),
          )
        }
      >
        {label}
      </Button>
      <span role="status" className="muted small">
        {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Copy failed: select the text and copy it by hand' : ''}
      </span>
    </span>
  );
}
