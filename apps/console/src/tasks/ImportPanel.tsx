import type { Schemas } from '@routinely/api-client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Button } from 'react-aria-components';
import { api, data, problemText } from '../api/client.js';
import { keys } from '../api/queries.js';
import { Outcome } from '../settings/Section.js';
import { TableScroll } from '../ui/TableScroll.js';

type Job = Schemas['ImportJob'];
const BUSY: Job['status'][] = ['queued', 'parsing', 'committing'];
const STATUS_WORDS: Record<Job['status'], string> = {
  queued: 'Waiting for the import worker…',
  parsing: 'Checking the rows…',
  parsed: 'Checked: nothing is imported until you confirm.',
  committing: 'Importing…',
  committed: 'Imported.',
  failed: 'The import failed.',
  cancelled: 'The import was cancelled.',
};

/** The file as the API takes it: JSON rows (an array, or `{ rows }`), or the CSV text itself. */
async function bodyOf(file: File): Promise<{ rows: unknown[] } | { csv: string }> {
  const text = await file.text();
  if (file.name.toLowerCase().endsWith('.json') || file.type === 'application/json') {
    const parsed: unknown = JSON.parse(text);
    const rows = Array.isArray(parsed) ? parsed : (parsed as { rows?: unknown[] }).rows;
    if (!Array.isArray(rows)) throw new Error('The JSON file holds no list of rows');
    return { rows };
  }
  return { csv: text };
}

/**
 * Bulk import of a CSV or JSON file as an import job: the worker checks every row first, the invalid ones are
 * listed with their field and reason, and only a file without them can be committed; the job's state shows
 * throughout.
 */
export function ImportPanel({ onClose }: { onClose(): void }) {
  const queryClient = useQueryClient();
  const fileId = useId();
  const [jobId, setJobId] = useState<string | undefined>();
  const start = useMutation({
    mutationFn: async (file: File) => {
      const body = await bodyOf(file);
      const answer =
        'rows' in body
          ? await api.POST('/api/v1/service/tasks/bulk-import/jobs', { body: { rows: body.rows, commit: false } })
          : await api.POST('/api/v1/service/tasks/bulk-import/jobs', {
              body: body.csv as never,
              bodySerializer: (csv: unknown) => csv as string,
              headers: { 'content-type': 'text/csv' },
            });
      return data(answer);
    },
    onSuccess: (answer) => setJobId(answer.job_id),
  });
  const job = useQuery({
    queryKey: ['tasks', 'import', jobId],
    enabled: jobId !== undefined,
    queryFn: async () =>
      data(
        await api.GET('/api/v1/service/tasks/bulk-import/jobs/{job_id}', {
          params: { path: { job_id: jobId ?? '' } },
        }),
      ),
    refetchInterval: (query) => (query.state.data && !BUSY.includes(query.state.data.status) ? false : 400),
  });
  const commit = useMutation({
    mutationFn: async () =>
      data(
        await api.POST('/api/v1/service/tasks/bulk-import/jobs/{job_id}/commit', {
          params: { path: { job_id: jobId ?? '' } },
          body: { auto_schedule: false },
        }),
      ),
    onSuccess: () => void job.refetch(),
  });
  const j = job.data;
  if (j?.status === 'committed') void queryClient.invalidateQueries({ queryKey: keys.tasks, exact: true });
  const failure = start.error ?? job.error ?? commit.error;
  return (
    <section className="card import" aria-labelledby="import-title">
      <div className="page-head">
        <h2 id="import-title">Bulk import</h2>
        <Button className="btn btn-small btn-quiet" onPress={onClose}>
          Close import
        </Button>
      </div>
      <p className="muted small">
        CSV with a header row (title, duration_min, priority, tags split by “;”, ref and parent_ref for nesting), or
        JSON rows with the same fields.
      </p>
      <div className="field">
        <label htmlFor={fileId}>CSV or JSON file</label>
        <input
          id={fileId}
          type="file"
          accept=".csv,.json,text/csv,application/json"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) {
              setJobId(undefined);
              start.mutate(file);
            }
          }}
        />
      </div>
      <Outcome error={failure ? problemText(failure) : undefined} />
      {j && (
        <div className="stack" aria-live="polite">
          <p role="status">
            {STATUS_WORDS[j.status]} {j.total > 0 && `${j.total} rows: ${j.valid} valid, ${j.invalid} invalid.`}
          </p>
          {j.errors.length > 0 && (
            <TableScroll label="Invalid rows">
              <table className="attempts">
                <caption>Invalid rows</caption>
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    <th scope="col">Field</th>
                    <th scope="col">Problem</th>
                  </tr>
                </thead>
                <tbody>
                  {j.errors.map((e) => (
                    <tr key={`${e.row}-${e.loc.join('.')}`}>
                      <td>{e.row}</td>
                      <td>{e.loc.join('.') || '(the row)'}</td>
                      <td>{e.msg}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )}
          {j.status === 'parsed' &&
            (j.invalid > 0 ? (
              <p className="notice">Fix the invalid rows and choose the file again: an import is all or nothing.</p>
            ) : (
              <Button className="btn btn-primary" onPress={() => commit.mutate()} isDisabled={commit.isPending}>
                Import {j.valid} tasks
              </Button>
            ))}
        </div>
      )}
    </section>
  );
}
