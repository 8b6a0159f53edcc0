import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data, problemText } from '../api/client.js';
import { keys } from '../api/queries.js';
import { useToasts } from '../ui/toasts.js';
import { type ChipKey, type Fields, without } from './chips.js';

async function parse(text: string) {
  return data(await api.POST('/api/v1/service/tasks/parse', { body: { text } }));
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
    onSuccess: (task, { input }) => {
      // What was typed meanwhile stays: only the text that was added is cleared.
      setTextState((current) => (current.trim() === input ? '' : current));
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
