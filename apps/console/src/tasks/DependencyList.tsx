import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from 'react-aria-components';
import { api, data, problemText } from '../api/client.js';
import { keys, useAllTasks } from '../api/queries.js';

/** What the task waits for (finish-to-start), with add and remove. */
export function DependencyList({ taskId }: { taskId: string }) {
  const queryClient = useQueryClient();
  const tasks = useAllTasks();
  const [error, setError] = useState<string | undefined>();
  const deps = useQuery({
    queryKey: keys.dependencies(taskId),
    queryFn: async () =>
      data(await api.GET('/api/v1/service/tasks/{task_id}/dependencies', { params: { path: { task_id: taskId } } })),
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: keys.dependencies(taskId) });
  const add = useMutation({
    mutationFn: async (dependsOn: string) =>
      data(
        await api.POST('/api/v1/service/tasks/dependencies', { body: { task_id: taskId, depends_on_id: dependsOn } }),
      ),
    onSuccess: changed,
    onError: (failure) => setError(problemText(failure)),
  });
  const remove = useMutation({
    mutationFn: async (depId: string) =>
      data(await api.DELETE('/api/v1/service/tasks/dependencies/{dep_id}', { params: { path: { dep_id: depId } } })),
    onSuccess: changed,
    onError: (failure) => setError(problemText(failure)),
  });
  const titleOf = (id: string) => tasks.data?.find((t) => t.id === id)?.title ?? 'a task';
  const taken = new Set([taskId, ...(deps.data?.depends_on ?? []).map((d) => d.depends_on_id)]);
  const candidates = (tasks.data ?? []).filter((t) => !taken.has(t.id) && t.parent_task_id === null);

  return (
    <section className="drawer-section" aria-labelledby="deps-title">
      <h3 id="deps-title">Waits for</h3>
      {deps.data && deps.data.depends_on.length === 0 && (
        <p className="muted small">No other task has to come first.</p>
      )}
      <ul className="deps">
        {deps.data?.depends_on.map((d) => (
          <li key={d.id}>
            <span>{titleOf(d.depends_on_id)}</span>
            <Button
              className="btn btn-small btn-quiet"
              aria-label={`Remove waiting for ${titleOf(d.depends_on_id)}`}
              onPress={() => remove.mutate(d.id)}
            >
              Remove
            </Button>
          </li>
        ))}
      </ul>
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      {candidates.length > 0 && (
        <Select
          className="field"
          selectedKey={null}
          onSelectionChange={(key) => key && add.mutate(String(key))}
          placeholder="Choose a task"
        >
          <Label>Add a task it waits for</Label>
          <Button className="select-button">
            <SelectValue />
            <span aria-hidden="true">▾</span>
          </Button>
          <Popover className="popover">
            <ListBox className="listbox" items={candidates}>
              {(t) => (
                <ListBoxItem id={t.id} className="listbox-item">
                  {t.title}
                </ListBoxItem>
              )}
            </ListBox>
          </Popover>
        </Select>
      )}
    </section>
  );
}
