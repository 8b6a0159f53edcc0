import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import {
  Button,
  Checkbox,
  CheckboxGroup,
  Dialog,
  Form,
  Heading,
  Input,
  Label,
  Modal,
  ModalOverlay,
  NumberField,
  TextField,
} from 'react-aria-components';
import { api, data, problemText } from '../api/client.js';
import { keys, type Task, useSettings } from '../api/queries.js';
import { Confirm } from '../ui/Confirm.js';
import { Field } from '../ui/Field.js';
import { useToasts } from '../ui/toasts.js';
import { DependencyList } from './DependencyList.js';
import { StepList } from './StepList.js';
import { formOf, patchOf, type TaskForm, type TaskPatch } from './task-form.js';

/** The task drawer (`?task=<id>` on any page): edit, steps, dependencies, done / skip / unschedule, delete. */
export default function TaskDrawer({ taskId, onClose }: { taskId: string; onClose(): void }) {
  const settings = useSettings();
  const tree = useQuery({
    queryKey: keys.task(taskId),
    queryFn: async () =>
      data(await api.GET('/api/v1/service/tasks/{task_id}/tree', { params: { path: { task_id: taskId } } })),
  });
  const timeZone = settings.data?.timezone ?? 'UTC';
  return (
    <ModalOverlay className="drawer-overlay" isDismissable isOpen onOpenChange={(open) => !open && onClose()}>
      <Modal className="drawer">
        <Dialog className="drawer-dialog" aria-label={tree.data ? `Task ${tree.data.title}` : 'Task'}>
          {tree.isError && (
            <>
              <Heading slot="title">Task</Heading>
              <p className="notice notice-error" role="alert">
                {problemText(tree.error)}
              </p>
              <Button className="btn" onPress={onClose}>
                Close
              </Button>
            </>
          )}
          {tree.data && settings.data && (
            <TaskEditor key={tree.data.id} task={tree.data} timeZone={timeZone} onClose={onClose} />
          )}
          {tree.isPending && <p aria-busy="true">Loading…</p>}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

function TaskEditor({
  task,
  timeZone,
  onClose,
}: {
  task: Task & { children: (Task & { children: unknown[] })[] };
  timeZone: string;
  onClose(): void;
}) {
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const initial = formOf(task, timeZone);
  const [form, setForm] = useState<TaskForm>(initial);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const set =
    <K extends keyof TaskForm>(key: K) =>
    (value: TaskForm[K]) =>
      setForm((f) => ({ ...f, [key]: value }));
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: keys.tasks });
    void queryClient.invalidateQueries({ queryKey: keys.events });
  };

  const patch = useMutation({
    mutationFn: async (body: TaskPatch) =>
      data(await api.PATCH('/api/v1/service/tasks/{task_id}', { params: { path: { task_id: task.id } }, body })),
    onSuccess: (saved, body) => {
      refresh();
      if (body.status === 'done') toasts.show({ text: `“${saved.title}” is done`, tone: 'info' });
    },
    onError: (failure) => setError(problemText(failure)),
  });
  const remove = useMutation({
    mutationFn: async () =>
      data(await api.DELETE('/api/v1/service/tasks/{task_id}', { params: { path: { task_id: task.id } } })),
    onSuccess: () => {
      refresh();
      toasts.show({ text: `Deleted “${task.title}”`, tone: 'info' });
      onClose();
    },
    onError: (failure) => setError(problemText(failure)),
  });

  useEffect(() => setError(undefined), [form]);
  const save = (event: FormEvent) => {
    event.preventDefault();
    const body = patchOf(initial, form, timeZone);
    if (Object.keys(body).length) patch.mutate(body);
  };
  const scheduled = task.chosen_slot_start !== null;
  const open = task.status === 'pending' || task.status === 'scheduled';

  return (
    <>
      <div className="drawer-head">
        <Heading slot="title">{task.title}</Heading>
        <span className={`status status-${task.status}`}>{task.status}</span>
        <Button className="btn btn-icon" aria-label="Close" onPress={onClose}>
          ×
        </Button>
      </div>
      <div className="row wrap">
        {open && (
          <Button className="btn btn-primary" onPress={() => patch.mutate({ status: 'done' })}>
            Mark done
          </Button>
        )}
        {open && (
          <Button className="btn" onPress={() => patch.mutate({ status: 'skipped' })}>
            Skip
          </Button>
        )}
        {!open && (
          <Button
            className="btn"
            onPress={() => patch.mutate({ status: 'pending', chosen_slot_start: null, chosen_slot_end: null })}
          >
            Reopen
          </Button>
        )}
        {scheduled && open && (
          <Button className="btn" onPress={() => patch.mutate({ chosen_slot_start: null, chosen_slot_end: null })}>
            Unschedule
          </Button>
        )}
        <Button className="btn btn-danger" onPress={() => setConfirmDelete(true)}>
          Delete
        </Button>
      </div>
      {confirmDelete && (
        <Confirm
          id="confirm-delete"
          confirmLabel="Delete task"
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirmDelete(false)}
        >
          Delete “{task.title}”{task.children.length ? ` and its ${task.children.length} steps` : ''}? This cannot be
          undone.
        </Confirm>
      )}
      {error && (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      )}
      <Form className="stack" onSubmit={save}>
        <Field label="Title" isRequired value={form.title} onChange={set('title')} />
        <Field label="Description" multiline value={form.description} onChange={set('description')} />
        <div className="grid-2">
          <NumberField className="field" minValue={1} maxValue={5} value={form.priority} onChange={set('priority')}>
            <Label>Priority (1 highest)</Label>
            <Input />
          </NumberField>
          <NumberField
            className="field"
            minValue={0}
            maxValue={1440}
            step={5}
            value={form.duration_min}
            onChange={set('duration_min')}
          >
            <Label>Duration (minutes)</Label>
            <Input />
          </NumberField>
          <TextField className="field" value={form.earliest} onChange={set('earliest')}>
            <Label>Earliest start</Label>
            <Input type="datetime-local" />
          </TextField>
          <TextField className="field" value={form.deadline} onChange={set('deadline')}>
            <Label>Deadline</Label>
            <Input type="datetime-local" />
          </TextField>
        </div>
        <Field label="Tags" placeholder="home, errands" value={form.tags} onChange={set('tags')} />
        <div className="grid-2">
          <NumberField
            className="field"
            minValue={0}
            maxValue={10080}
            value={form.reminder_offset_min}
            onChange={set('reminder_offset_min')}
          >
            <Label>Remind minutes before</Label>
            <Input />
          </NumberField>
          <CheckboxGroup
            className="field checks"
            value={form.reminder_channels}
            onChange={(v) => set('reminder_channels')(v as TaskForm['reminder_channels'])}
          >
            <Label>Remind by</Label>
            <Checkbox value="inapp">In the app</Checkbox>
            <Checkbox value="email">Email</Checkbox>
            <Checkbox value="webhook">Webhook</Checkbox>
          </CheckboxGroup>
        </div>
        <p className="muted small">Times are in {timeZone}.</p>
        <Button type="submit" className="btn btn-primary" isDisabled={patch.isPending}>
          Save changes
        </Button>
      </Form>
      <StepList parent={task} steps={task.children} onChanged={refresh} />
      <DependencyList taskId={task.id} />
    </>
  );
}
