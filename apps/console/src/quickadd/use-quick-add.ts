import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data, problemText } from '../api/client.js';
import { keys } from '../api/queries.js';
import { durationLabel, hhmm, longDay, zoned } from '../time/zone.js';
import { useToasts } from '../ui/toasts.js';

type Parsed = Awaited<ReturnType<typeof parse>>;
type Fields = Parsed['fields'];
export type ChipKey = 'duration_min' | 'priority' | 'deadline_at' | 'earliest_start_at' | 'recurrence' | `tag:${string}`;
export interface Chip {
  key: ChipKey;
  label: string;
}

async function parse(text: string) {
  return data(await api.POST('/api/v1/service/tasks/parse', { body: { text } }));
}

const when = (iso: string, timeZone: string) => {
  const t = zoned(iso, timeZone);
  return `${longDay(t.toPlainDate())} ${hhmm(t)}`;
};

/** The recognised parts of a parse as chips, in the user's timezone. */
export function chipsOf(fields: Fields, timeZone: string): Chip[] {
  const chips: Chip[] = [];
  if (fields.duration_min !== undefined) chips.push({ key: 'duration_min', label: durationLabel(fields.duration_min) });
  if (fields.earliest_start_at) chips.push({ key: 'earliest_start_at', label: `From ${when(fields.earliest_start_at, timeZone)}` });
  if (fields.deadline_at) chips.push({ key: 'deadline_at', label: `Due ${when(fields.deadline_at, timeZone)}` });
  if (fields.priority !== undefined) chips.push({ key: 'priority', label: `Priority ${fields.priority}` });
  for (const tag of fields.tags ?? []) chips.push({ key: `tag:${tag}`, label: `#${tag}` });
  if (fields.recurrence) chips.push({ key: 'recurrence', label: `Repeats ${fields.recurrence.rule}` });
  return chips;
}

function without(fields: Fields, key: ChipKey): Fields {
  if (key.startsWith('tag:')) return { ...fields, tags: (fields.tags ?? []).filter((t) => `tag:${t}` !== key) };
  const { [key as keyof Fields]: _dropped, ...rest } = fields;
  return rest;
}

/**
 * Quick add: the text goes to `POST /tasks/parse`, what it understood shows as removable chips, and a second
 * Enter (or Add) creates the task from the fields that are left. Shared by the header box and the palette.
 */
export function useQuickAdd(onCreated?: () => void) {
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const [text, setTextState] = useState('');
  const [parsed, setParsed] = useState<{ text: string; fields: Fields } | undefined>();
  const [error, setError] = useState<string | undefined>();

  const parsing = useMutation({
    mutationFn: parse,
    onSuccess: (answer, input) => setParsed({ text: input, fields: answer.fields }),
    onError: (failure) => setError(problemText(failure)),
  });
  const creating = useMutation({
    mutationFn: async ({ input, fields }: { input: string; fields: Fields }) =>
      data(
        await api.POST('/api/v1/service/tasks', {
          body: { ...fields, title: fields.title || input, raw_input: input },
        }),
      ),
    onSuccess: (task) => {
      setTextState('');
      setParsed(undefined);
      void queryClient.invalidateQueries({ queryKey: keys.tasks });
      toasts.show({ text: `Added “${task.title}”`, tone: 'info' });
      onCreated?.();
    },
    onError: (failure) => setError(problemText(failure)),
  });

  const setText = (value: string) => {
    setTextState(value);
    setError(undefined);
    if (parsed && parsed.text !== value) setParsed(undefined);
  };

  /** Enter: parse first; with a parse of this very text on screen, create. */
  const submit = () => {
    const input = text.trim();
    if (!input || parsing.isPending || creating.isPending) return;
    if (parsed && parsed.text === input) creating.mutate({ input, fields: parsed.fields });
    else parsing.mutate(input);
  };

  const remove = (key: ChipKey) => setParsed((p) => p && { ...p, fields: without(p.fields, key) });
  const clear = () => {
    setTextState('');
    setParsed(undefined);
    setError(undefined);
  };

  return {
    text,
    setText,
    submit,
    remove,
    clear,
    parsed: parsed && parsed.text === text.trim() ? parsed : undefined,
    busy: parsing.isPending || creating.isPending,
    error,
  };
}
