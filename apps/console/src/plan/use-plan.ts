import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, api, data, problemText } from '../api/client.js';
import { type Decision, keys } from '../api/queries.js';

export type Provider = 'builtin' | 'openai' | 'anthropic';

export interface Proposal {
  runId: string;
  provider: string;
  decisions: Decision[];
  unscheduled: { task_id: string; reason: string }[];
  costUsd: number;
}

const POLL_MS = 1000;

/** A refused run in words; the spend cap's refusal says what happened and what still works. */
function refusalText(failure: unknown): string {
  if (failure instanceof ApiError && failure.problem?.code === 'quota_exceeded') {
    return `Refused: today's model spend has reached your daily cap, so no model run is made until tomorrow. The built-in solver still plans at no cost. (${failure.message})`;
  }
  if (failure instanceof ApiError && failure.problem?.code === 'provider_unavailable') {
    return `That provider is not available here: ${failure.message}`;
  }
  return problemText(failure);
}

/** A run over more than 10 tasks is queued (202): wait for it to finish. */
async function finishedRun(runId: string): Promise<Proposal> {
  for (;;) {
    const run = data(await api.GET('/api/v1/service/schedule/runs/{run_id}', { params: { path: { run_id: runId } } }));
    if (run.status === 'failed') throw new Error(run.error ?? 'the scheduling run failed');
    if (run.status === 'completed') {
      return {
        runId,
        provider: run.provider,
        decisions: run.decisions,
        unscheduled: run.unscheduled,
        costUsd: run.cost_usd,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Plan my week: a dry-run scheduling run of the week's unscheduled tasks (nothing changes), shown as ghost
 * blocks; Apply appends an override of each proposed decision with its slot and rationale (applied at once,
 * contract "scheduling runs and decisions"); Discard forgets them.
 */
export function usePlan() {
  const queryClient = useQueryClient();
  const [proposal, setProposal] = useState<Proposal | undefined>();
  const [error, setError] = useState<string | undefined>();

  const run = useMutation({
    mutationFn: async (input: { taskIds: string[]; provider: Provider; windowStart: string; windowEnd: string }) => {
      const result = data(
        await api.POST('/api/v1/service/schedule', {
          body: {
            task_ids: input.taskIds.slice(0, 200),
            provider: input.provider,
            window_start: input.windowStart,
            window_end: input.windowEnd,
            dry_run: true,
          },
        }),
      );
      if (!('decisions' in result)) return finishedRun(result.run_id);
      return {
        runId: result.run_id,
        provider: result.provider,
        decisions: result.decisions,
        unscheduled: result.unscheduled,
        costUsd: result.cost_usd,
      };
    },
    onMutate: () => {
      setError(undefined);
      setProposal(undefined);
    },
    onSuccess: setProposal,
    onError: (failure) => setError(refusalText(failure)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.cost }),
  });

  const apply = useMutation({
    mutationFn: async (decisions: Decision[]) =>
      Promise.all(
        decisions.map(async (d) =>
          data(
            await api.POST('/api/v1/service/schedule/decisions/{decision_id}/override', {
              params: { path: { decision_id: d.id } },
              body: {
                chosen_slot_start: d.chosen_slot_start,
                chosen_slot_end: d.chosen_slot_end,
                rationale: d.rationale,
              },
            }),
          ),
        ),
      ),
    onSuccess: (applied) => {
      // Their rationale explains the new blocks until a later run replaces the latest run's decisions.
      queryClient.setQueryData<Decision[]>(keys.latestRun, (old) => [...applied, ...(old ?? [])]);
      setProposal(undefined);
    },
    onError: (failure) => setError(`Applying failed: ${problemText(failure)}`),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: keys.events });
      void queryClient.invalidateQueries({ queryKey: keys.tasks });
    },
  });

  const discard = () => {
    setProposal(undefined);
    setError(undefined);
  };

  return { proposal, error, run, apply, discard };
}
