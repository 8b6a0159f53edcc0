import { z } from 'zod';
import { taskRead } from '../tasks/schemas.js';

export const TREE_DEFAULT_LIMIT = 1000;
export const TREE_MAX_LIMIT = 5000;
/** The whole tree in one answer is unbounded work for a large account: it is paged (depth-first order). */
export const treeQuery = z.object({
  limit: z.coerce.number().int().min(1).max(TREE_MAX_LIMIT).default(TREE_DEFAULT_LIMIT),
  offset: z.coerce.number().int().min(0).default(0),
});

export const treePage = z.array(taskRead).describe('One page of the depth-first tree; X-Total-Count: all tasks');
