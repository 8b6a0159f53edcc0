import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, Checkbox, Form, Input, Label, NumberField } from 'react-aria-components';
import { api, data, fieldErrors, problemText } from '../api/client.js';
import { keys, type Task } from '../api/queries.js';
import { Field } from '../ui/Field.js';
import { RuleBuilder } from './RuleBuilder.js';
import { DEFAULT_SHAPE, type RuleShape, ruleOf, shapeOf } from './rrule.js';

interface Draft {
  title: string;
  shape: RuleShape;
  rule: string;
  from: string;
  to: string;
  duration: number;
  autoSchedule: boolean;
  steps: string[];
}

function draftOf(routine: Task | undefined): Draft {
  const recurrence = routine?.recurrence;
  if (!routine || !recurrence) {
    return {
      title: '',
      shape: DEFAULT_SHAPE,
      rule: 'FREQ=DAILY',
      from: '',
      to: '',
      duration: 30,
      autoSchedule: true,
      steps: [],
    };
  }
  return {
    title: routine.title,
    shape: shapeOf(recurrence.rule),
    rule: recurrence.rule,
    from: recurrence.window?.start ?? '',
    to: recurrence.window?.end ?? '',
    duration: routine.duration_min,
    autoSchedule: recurrence.auto_schedule,
    steps: [],
  };
}

/**
 * Create or edit a routine: the rule builder writes the RRULE into the raw field, and a rule typed there is
 * read back into the builder when it can show it ("Custom" otherwise). A new routine's steps are listed here and
 * created after it; an existing routine's steps are edited in their own list (see RoutineDetail).
 */
export function RoutineForm({ routine, onSaved }: { routine?: Task; onSaved(routine: Task): void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(routine));
  const [newStep, setNewStep] = useState('');
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const setShape = (patch: Partial<RuleShape>) =>
    setDraft((d) => {
      const shape = { ...d.shape, ...patch };
      return { ...d, shape, rule: ruleOf(shape) ?? d.rule };
    });

  const save = useMutation({
    mutationFn: async (d: Draft) => {
      const window = d.from || d.to ? { start: d.from, end: d.to } : null;
      const recurrence = {
        rule: d.rule.trim(),
        window,
        auto_schedule: d.autoSchedule,
        ...(routine?.recurrence
          ? {
              starts_on: routine.recurrence.starts_on,
              until: routine.recurrence.until,
              horizon_days: routine.recurrence.horizon_days,
            }
          : {}),
      };
      if (routine) {
        return data(
          await api.PATCH('/api/v1/service/tasks/{task_id}', {
            params: { path: { task_id: routine.id } },
            body: { title: d.title, duration_min: d.duration, recurrence },
          }),
        );
      }
      const created = data(
        await api.POST('/api/v1/service/tasks', { body: { title: d.title, duration_min: d.duration, recurrence } }),
      );
      // One after the other: each step's position is its order here.
      for (const title of d.steps) {
        data(
          await api.POST('/api/v1/service/tasks', { body: { title, parent_task_id: created.id, duration_min: 15 } }),
        );
      }
      return created;
    },
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: keys.tasks });
      void queryClient.invalidateQueries({ queryKey: keys.events });
      onSaved(saved);
    },
  });
  const errors = fieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(draft);
  };
  const addStep = () => {
    if (!newStep.trim()) return;
    set('steps', [...draft.steps, newStep.trim()]);
    setNewStep('');
  };
  const moveStep = (from: number, to: number) => {
    const steps = [...draft.steps];
    const [moved] = steps.splice(from, 1);
    if (moved === undefined || to < 0 || to > steps.length) return;
    steps.splice(to, 0, moved);
    set('steps', steps);
  };

  return (
    <Form className="stack routine-form" onSubmit={submit} validationErrors={errors}>
      <Field label="Title" name="title" isRequired value={draft.title} onChange={(v) => set('title', v)} />
      <RuleBuilder shape={draft.shape} onChange={setShape} />
      <Field
        label="Rule (RFC 5545 RRULE)"
        name="recurrence.rule"
        isRequired
        value={draft.rule}
        onChange={(rule) => setDraft((d) => ({ ...d, rule, shape: shapeOf(rule) }))}
      />
      <fieldset className="window">
        <legend>Window</legend>
        <p className="muted small">Where on its day an occurrence may be placed (HH:MM; empty for any time).</p>
        <div className="row">
          <Field
            label="From"
            name="recurrence.window.start"
            placeholder="07:00"
            value={draft.from}
            onChange={(v) => set('from', v)}
          />
          <Field
            label="To"
            name="recurrence.window.end"
            placeholder="08:00"
            value={draft.to}
            onChange={(v) => set('to', v)}
          />
        </div>
      </fieldset>
      <NumberField
        className="field"
        name="duration_min"
        minValue={0}
        maxValue={1440}
        step={5}
        value={draft.duration}
        onChange={(v) => set('duration', v)}
      >
        <Label>Duration (minutes)</Label>
        <Input />
      </NumberField>
      <Checkbox
        className="react-aria-Checkbox plan-check"
        isSelected={draft.autoSchedule}
        onChange={(v) => set('autoSchedule', v)}
      >
        <span className="check" aria-hidden="true" />
        Plan occurrences into my calendar automatically
      </Checkbox>
      {!routine && (
        <section className="stack" aria-labelledby="new-steps">
          <h2 id="new-steps">Steps</h2>
          {draft.steps.length > 0 && (
            <ol className="step-drafts">
              {draft.steps.map((step, i) => (
                <li key={i} className="step">
                  <span className="step-title">{step}</span>
                  <Button
                    className="btn btn-small"
                    aria-label={`Move ${step} up`}
                    isDisabled={i === 0}
                    onPress={() => moveStep(i, i - 1)}
                  >
                    ↑
                  </Button>
                  <Button
                    className="btn btn-small"
                    aria-label={`Move ${step} down`}
                    isDisabled={i === draft.steps.length - 1}
                    onPress={() => moveStep(i, i + 1)}
                  >
                    ↓
                  </Button>
                  <Button
                    className="btn btn-small"
                    aria-label={`Remove ${step}`}
                    onPress={() =>
                      set(
                        'steps',
                        draft.steps.filter((_, j) => j !== i),
                      )
                    }
                  >
                    Remove
                  </Button>
                </li>
              ))}
            </ol>
          )}
          <div className="row">
            <Field
              label="New step"
              className="grow"
              value={newStep}
              onChange={setNewStep}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  addStep();
                }
              }}
            />
            <Button className="btn" onPress={addStep}>
              Add step
            </Button>
          </div>
        </section>
      )}
      {save.isError && (
        <p className="notice notice-error" role="alert">
          {problemText(save.error)}
        </p>
      )}
      <Button type="submit" className="btn btn-primary" isDisabled={save.isPending}>
        Save routine
      </Button>
    </Form>
  );
}
