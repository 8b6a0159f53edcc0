import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Button } from 'react-aria-components';
import { problemText } from '../api/client.js';

/**
 * The three states every screen of part 2 shares: a skeleton while the layout is known but the data is not
 * (grey bars where the rows will be, not a spinner), the problem's `detail` in words with a retry, and an
 * empty state that says what to do next.
 */
export function Skeleton({ rows = 3, label }: { rows?: number; label: string }) {
  return (
    <div className="skeleton" aria-busy="true" role="status" aria-label={label}>
      {Array.from({ length: rows }, (_, i) => (
        <span key={i} className="skeleton-row" />
      ))}
    </div>
  );
}

export function ProblemNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <div className="notice notice-error problem" role="alert">
      <span>{problemText(error)}</span>
      {onRetry && (
        <Button className="btn btn-small" onPress={onRetry}>
          Try again
        </Button>
      )}
    </div>
  );
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="empty muted">{children}</p>;
}

/** A query's loading and error states, then `children(data)`. */
export function QueryView<T>({
  query,
  label,
  rows,
  children,
}: {
  query: UseQueryResult<T>;
  label: string;
  rows?: number;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Skeleton rows={rows} label={label} />;
  if (query.isError) return <ProblemNotice error={query.error} onRetry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}
