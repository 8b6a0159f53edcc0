import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, Checkbox, Form, GridList, GridListItem, useDragAndDrop } from 'react-aria-components';
import { api, data, problemText } from '../api/client.js';
import type { Task } from '../api/queries.js';
import { Field } from '../ui/Field.js';

/**
 * A task's steps (its children): add, mark done, and reorder by drag or by keyboard (React Aria's drag and
 * drop: focus a step, press Enter on its drag handle, arrows to the place, Enter to drop). A routine's steps
 * (`template`) are not done themselves (their copies in each occurrence are): they are added, reordered and
 * removed, and the server carries that to the future occurrences.
 */
export function StepList({
  parent,
  steps,
  onChanged,
  template = false,
}: {
  parent: Task;
  steps: Task[];
  onChanged(): void;
  template?: boolean;
}) {
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | undefined>();
  const ordered = [...steps].sort((a, b) => a.sort_order - b.sort_order);
  const fail = (failure: unknown) => setError(problemText(failure));

  const add = useMutation({
    mutationFn: async (stepTitle: string) =>
      data(
        await api.POST('/api/v1/service/tasks', {
          body: { title: stepTitle, parent_task_id: parent.id, duration_min: 15 },
        }),
      ),
    onSuccess: () => {
      setTitle('');
      onChanged();
    },
    onError: fail,
  });
  const toggle = useMutation({
    mutationFn: async ({ id, done }: { id: string; done: boolean }) =>
      data(
        await api.PATCH('/api/v1/service/tasks/{task_id}', {
          params: { path: { task_id: id } },
          body: { status: done ? 'done' : 'pending' },
        }),
      ),
    onSuccess: onChanged,
    onError: fail,
  });
  const remove = useMutation({
    mutationFn: async (id: string) =>
      data(await api.DELETE('/api/v1/service/tasks/{task_id}', { params: { path: { task_id: id } } })),
    onSuccess: onChanged,
    onError: fail,
  });
  const reorder = useMutation({
    mutationFn: async ({ id, position }: { id: string; position: number }) =>
      data(
        await api.POST('/api/v1/service/tasks/{task_id}/reorder', {
          params: { path: { task_id: id } },
          body: { sort_order: position },
        }),
      ),
    onSuccess: onChanged,
    onError: fail,
  });

  const { dragAndDropHooks } = useDragAndDrop({
    getItems: (keys) => [...keys].map((key) => ({ 'text/plain': String(key) })),
    onReorder(e) {
      const moved = [...e.keys][0];
      const target = ordered.findIndex((s) => s.id === e.target.key);
      const from = ordered.findIndex((s) => s.id === moved);
      if (moved === undefined || target < 0 || from < 0) return;
      let position = e.target.dropPosition === 'before' ? target : target + 1;
      if (from < position) position -= 1;
      reorder.mutate({ id: String(moved), position });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (title.trim()) add.mutate(title.trim());
  };

  return (
    <section className="drawer-section" aria-labelledby="steps-title">
      <h3 id="steps-title">Steps</h3>
      {ordered.length > 0 && (
        <GridList aria-label="Steps" items={ordered} dragAndDropHooks={dragAndDropHooks} className="steps">
          {(step) => (
            <GridListItem id={step.id} textValue={step.title} className="step">
              <Button slot="drag" className="drag-handle" aria-label={`Reorder ${step.title}`}>
                ⠿
              </Button>
              {!template && (
                <Checkbox
                  isSelected={step.status === 'done'}
                  onChange={(done) => toggle.mutate({ id: step.id, done })}
                  aria-label={`${step.title} done`}
                >
                  <span className="check" aria-hidden="true" />
                </Checkbox>
              )}
              <span className={step.status === 'done' ? 'step-title done' : 'step-title'}>{step.title}</span>
              {template && (
                <Button
                  className="btn btn-small"
                  aria-label={`Remove ${step.title}`}
                  onPress={() => remove.mutate(step.id)}
                >
                  Remove
                </Button>
              )}
            </GridListItem>
          )}
        </GridList>
      )}
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      <Form className="row" onSubmit={submit}>
        <Field label="New step" value={title} onChange={setTitle} className="grow" />
        <Button type="submit" className="btn" isDisabled={add.isPending}>
          Add step
        </Button>
      </Form>
    </section>
  );
}
