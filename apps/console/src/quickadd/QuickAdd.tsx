import { lazy, Suspense } from 'react';
import { Input, TextField } from 'react-aria-components';
import { useQuickAdd } from './use-quick-add.js';

// The chips load with the first parse: the tag group's code is not needed for the first screen.
const QuickAddPreview = lazy(() => import('./QuickAddPreview.js'));

/** The header's quick add box (`q` focuses it). */
export function QuickAdd() {
  const quick = useQuickAdd();
  return (
    <div className="quickadd">
      <TextField
        aria-label="Quick add"
        value={quick.text}
        onChange={quick.setText}
        onKeyDown={(event) => {
          if (event.key === 'Enter') quick.submit();
          if (event.key === 'Escape') quick.clear();
        }}
      >
        <Input id="quick-add" placeholder="Quick add: “Water the plants 15 min tomorrow 9am #home”  (q)" />
      </TextField>
      {(quick.parsed || quick.error) && (
        <Suspense fallback={null}>
          <QuickAddPreview quick={quick} />
        </Suspense>
      )}
    </div>
  );
}
