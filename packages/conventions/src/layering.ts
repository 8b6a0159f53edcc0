import { cruise, type IForbiddenRuleType } from 'dependency-cruiser';

/**
 * The layering of the code base as dependency-cruiser rules: what a file may import, by folder. The service
 * layers are those of docs/service-guide.md: routes and handlers call domain/, domain/ never calls outward, and
 * only db/ reaches the database drivers.
 */
const LAYERING_RULES: IForbiddenRuleType[] = [
  {
    name: 'no-circular',
    comment: 'a cycle makes two modules one; split what both need into a third',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
  {
    name: 'packages-not-to-services',
    comment: 'shared packages serve services, never the other way round (deployables live under apps/)',
    severity: 'error',
    from: { path: '^packages/' },
    to: { path: '^services/' },
  },
  {
    name: 'no-cross-service-imports',
    comment: 'a service reaches another over gRPC or events, never by importing it',
    severity: 'error',
    from: { path: '^services/([^/]+)/' },
    to: { path: '^services/', pathNot: '^services/$1/' },
  },
  {
    name: 'domain-not-to-outer-layers',
    comment: 'domain/ holds the rules; transports (http, grpc, events) and workers call it, not the reverse',
    severity: 'error',
    from: { path: '^services/[^/]+/src/domain/' },
    to: { path: '^services/[^/]+/src/(http|grpc|events|workers)/' },
  },
  {
    name: 'domain-uses-adapters-as-ports',
    comment: 'domain/ sees an adapter only through a type or port; app.ts builds the adapter and passes it in',
    severity: 'error',
    from: { path: '^services/[^/]+/src/domain/' },
    to: { path: '^services/[^/]+/src/adapters/', dependencyTypesNot: ['type-only'] },
  },
  {
    name: 'no-fastify-in-domain',
    comment: 'domain/ never sees a request or a reply: HTTP helpers live in http/',
    severity: 'error',
    from: { path: '^services/[^/]+/src/domain/' },
    to: { path: '(^|node_modules/)(fastify[^/]*|@fastify/[^/]+)(/|$)' },
  },
  {
    name: 'transports-reach-db-through-domain',
    comment: 'consumers and gRPC handlers delegate to domain/, which alone calls db/ (as routes do)',
    severity: 'error',
    from: { path: '^services/[^/]+/src/(events|grpc)/' },
    to: { path: '^services/[^/]+/src/db/' },
  },
  {
    name: 'http-not-to-db',
    comment: 'routes see domain types; db/ row types stay behind domain/',
    severity: 'error',
    from: { path: '^services/[^/]+/src/http/' },
    to: { path: '^services/[^/]+/src/db/' },
  },
  {
    name: 'only-db-reaches-the-database',
    comment: 'database drivers and the ORM are used in db/ only (migrations and entities included)',
    severity: 'error',
    from: { path: '^services/[^/]+/src/', pathNot: '^services/[^/]+/src/db/' },
    to: { path: '(^|node_modules/)(pg|knex|@mikro-orm/[^/]+)(/|$)' },
  },
];

export interface Violation {
  rule: string;
  from: string;
  to: string;
}

/** Every violation of the rules among the files below `paths` (relative to `baseDir`), sorted. */
export async function layeringViolations(baseDir: string, paths: string[]): Promise<Violation[]> {
  const result = await cruise(paths, {
    baseDir,
    exclude: { path: ['/dist/', '/gen/', '/migrations/', 'test-results', '/fixtures/'] },
    doNotFollow: { path: ['node_modules'] },
    tsPreCompilationDeps: true,
    // Workspace packages resolve to their sources (the `source` export condition), as the tests do.
    enhancedResolveOptions: {
      conditionNames: ['source', 'import', 'node', 'default'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.js', '.json'],
    },
    validate: true,
    ruleSet: { forbidden: LAYERING_RULES },
  });
  if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a result');
  return result.output.summary.violations
    .map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }))
    .sort((a, b) => `${a.rule} ${a.from} ${a.to}`.localeCompare(`${b.rule} ${b.from} ${b.to}`));
}
