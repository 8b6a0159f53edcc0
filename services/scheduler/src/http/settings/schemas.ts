import { z } from 'zod';
import { noGoWindowOut } from '../../domain/settings-model.js';

export const windowIdParams = z.object({ window_id: z.uuid() });
export const noGoWindowList = z.array(noGoWindowOut);
export const noGoWindowRemoved = z.null().describe('Removed');
