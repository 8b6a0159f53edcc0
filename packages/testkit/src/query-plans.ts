import { column, type Orm, readPoolOf, row, Sql, toPositional } from '@routinely/db';
import { z } from 'zod';

/** A node of an EXPLAIN (FORMAT JSON) plan. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan, depth first. */
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

export interface SentStatement {
  query: string;
  params: readonly unknown[];
  /** The name a hot read runs under on the read pool. */
  hotRead?: string | undefined;
}

/** Runs a query function of src/db against a stand-in that records the SQL it sends instead of running it. */
export async function statementOf(run: (sql: Sql) => Promise<unknown>): Promise<SentStatement> {
  let sent: SentStatement | undefined;
  const record = async (_schema: unknown, query: string, params: readonly unknown[] = [], hotRead?: string) => {
    sent = { query, params, hotRead };
    return [];
  };
  const recorder = {
    rows: record,
    first: async (...args: Parameters<typeof record>) => (await record(...args))[0],
    run: async (query: string, params: readonly unknown[] = []) => {
      sent = { query, params };
      return 0;
    },
  };
  await run(recorder as unknown as Sql);
  if (!sent) throw new Error('the query function sent no SQL');
  return sent;
}

/** A row of EXPLAIN (FORMAT JSON): the plan tree as PostgreSQL answers it. */
const planRow = row({ 'QUERY PLAN': column.json(z.array(z.object({ Plan: z.custom<PlanNode>() }))) });

const planNodes = (rows: z.output<typeof planRow>[]) => {
  const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
  if (!plan) throw new Error('no plan');
  return nodesOf(plan);
};

/**
 * The plan PostgreSQL makes for exactly the statement `run` sends, with the same parameters (a hot read as the
 * `$n` text it runs as on the read pool). Scale checks assert plans, never times.
 */
export async function planOf(orm: Orm, run: (sql: Sql) => Promise<unknown>): Promise<PlanNode[]> {
  const sent = await statementOf(run);
  if (sent.hotRead) {
    const { rows } = await readPoolOf(orm).query(`explain (format json) ${toPositional(sent.query)}`, [...sent.params]);
    return planNodes(rows.map((plan) => planRow.parse(plan)));
  }
  return planNodes(await Sql.of(orm).rows(planRow, `explain (format json) ${sent.query}`, sent.params));
}

export const seqScansOn = (nodes: PlanNode[], table: string) =>
  nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === table);

export const indexesUsed = (nodes: PlanNode[]) => nodes.map((n) => n['Index Name']).filter(Boolean);
