import { ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SettingsService } from '../../domain/settings.js';
import {
  noGoWindowInput,
  noGoWindowOut,
  settingsOut,
  settingsPatchSchema,
  workingHoursOut,
  workingHoursSchema,
} from '../../domain/settings-model.js';
import { noGoWindowList, noGoWindowRemoved, windowIdParams } from './schemas.js';

const tags = ['settings'];
const permission = 'SERVICE_SETTINGS_MANAGE';

/** /settings/*: the caller's own settings row, working hours and no-go windows. */
export function settingsRoutes(settings: SettingsService): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/settings/me',
      {
        config: { permission },
        schema: {
          operationId: 'getMySettings',
          tags,
          summary: "The caller's settings, created on first read",
          response: { 200: settingsOut },
        },
      },
      async (request) => settings.get(ownerOf(request)),
    );

    r.patch(
      '/service/settings/me',
      {
        config: { permission },
        schema: {
          operationId: 'updateMySettings',
          tags,
          summary:
            'Change some settings; llm_provider_default is ignored (and listed in `ignored`) while the tenant locks it',
          body: settingsPatchSchema,
          response: { 200: settingsOut },
        },
      },
      async (request) => settings.patch(ownerOf(request), request.body),
    );

    r.get(
      '/service/settings/working-hours',
      {
        config: { permission },
        schema: {
          operationId: 'getWorkingHours',
          tags,
          summary: 'Working hours, wall-clock in the settings timezone',
          response: { 200: workingHoursOut },
        },
      },
      async (request) => settings.workingHours(ownerOf(request)),
    );

    r.put(
      '/service/settings/working-hours',
      {
        config: { permission },
        schema: {
          operationId: 'replaceWorkingHours',
          tags,
          summary: 'Replace working hours (HH:MM, end may be 24:00, no overlaps, at most 6 a day; a missing day is [])',
          body: workingHoursSchema,
          response: { 200: workingHoursOut },
        },
      },
      async (request) => settings.replaceWorkingHours(ownerOf(request), request.body),
    );

    r.get(
      '/service/settings/no-go-windows',
      {
        config: { permission },
        schema: {
          operationId: 'listNoGoWindows',
          tags,
          summary: 'No-go windows, oldest first',
          response: { 200: noGoWindowList },
        },
      },
      async (request) => settings.windows(ownerOf(request)),
    );

    r.post(
      '/service/settings/no-go-windows',
      {
        config: { permission },
        schema: {
          operationId: 'createNoGoWindow',
          tags,
          summary: 'Add a weekly or once no-go window (the server generates the id when none is given)',
          body: noGoWindowInput,
          response: {
            ...problemAnswers({ conflict: 'a no-go window with this id exists already' }),
            201: noGoWindowOut,
          },
        },
      },
      async (request, reply) => reply.status(201).send(await settings.addWindow(ownerOf(request), request.body)),
    );

    r.delete(
      '/service/settings/no-go-windows/:window_id',
      {
        config: { permission },
        schema: {
          response: { 204: noGoWindowRemoved },
          operationId: 'deleteNoGoWindow',
          tags,
          summary: 'Remove a no-go window',
          params: windowIdParams,
        },
      },
      async (request, reply) => {
        await settings.removeWindow(ownerOf(request), request.params.window_id);
        return reply.status(204).send(null);
      },
    );
  };
}
