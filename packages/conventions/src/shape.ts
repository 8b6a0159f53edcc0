import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The one shape of a service (docs/service-guide.md), as data: what `services/<svc>/` holds and what its index
 * exports. `shapeDeviations` lists every place a service departs from it, one line each.
 */
const SERVICE_SHAPE = {
  /** The composition files, the only files directly in `src/`. */
  rootFiles: ['app.ts', 'config.ts', 'index.ts', 'main.ts', 'module.ts'],
  /** The only folders of `src/`; the first three every service has. */
  requiredFolders: ['db', 'domain', 'http'],
  optionalFolders: ['adapters', 'events', 'grpc', 'workers'],
  /** `http/<resource>/` holds these and nothing else (routes.ts required). */
  resourceFiles: ['routes.ts', 'schemas.ts'],
  /** What `test/` always holds: the service's harness (a thin wrapper over the testkit's) and the drift test. */
  testFiles: ['harness.ts', 'schema.test.ts'],
  /** The one file directly in `http/`: what several resources' routes share about a request (caller, cookies). */
  httpSharedFile: 'request.ts',
  /** What a file of a folder is named: servers in grpc/, consumers in events/, SQL modules in db/. */
  fileNames: {
    grpc: /^[a-z-]+-rpc\.ts$/,
    events: /^(consumers|[a-z-]+-consumer)\.ts$/,
    db: /^(config|entities|[a-z-]+-entities|[a-z-]+-sql)\.ts$/,
  } as Record<string, RegExp>,
  /** What index.ts may export: the host's needs, and types of the composition root. */
  indexExport: /^(buildService|configSchema|dbConfig|[a-z]+Module|[A-Z]\w*(Config|Deps|Service|ServiceInstance))$/,
} as const;

function entries(dir: string): { name: string; isDir: boolean }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((name) => ({ name, isDir: statSync(join(dir, name)).isDirectory() }));
}

/** Names exported by an index module (`export { a, type B } from ...` and `export type { C } from ...`). */
export function exportedNames(source: string): string[] {
  return [...source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((m) =>
    (m[1] ?? '')
      .split(',')
      .map((name) =>
        name
          .trim()
          .replace(/^type\s+/, '')
          .replace(/.*\sas\s+/, ''),
      )
      .filter(Boolean),
  );
}

/** Every departure of `services/<svc>` under `root` from SERVICE_SHAPE, as `<svc>: <what>` lines, sorted. */
export function shapeDeviations(root: string, service: string): string[] {
  const out: string[] = [];
  const say = (what: string) => out.push(`${service}: ${what}`);
  const src = join(root, 'services', service, 'src');
  const allowedFolders: string[] = [...SERVICE_SHAPE.requiredFolders, ...SERVICE_SHAPE.optionalFolders];
  for (const file of SERVICE_SHAPE.rootFiles) if (!existsSync(join(src, file))) say(`src/${file} is missing`);
  for (const folder of SERVICE_SHAPE.requiredFolders)
    if (!existsSync(join(src, folder))) say(`src/${folder}/ is missing`);
  const test = join(root, 'services', service, 'test');
  if (!existsSync(test)) say('test/ is missing');
  else for (const file of SERVICE_SHAPE.testFiles) if (!existsSync(join(test, file))) say(`test/${file} is missing`);
  for (const { name, isDir } of entries(src)) {
    if (isDir && !allowedFolders.includes(name)) say(`src/${name}/ is not a folder of the shape`);
    if (!isDir && !(SERVICE_SHAPE.rootFiles as readonly string[]).includes(name))
      say(`src/${name} belongs in a folder`);
  }
  for (const { name, isDir } of entries(join(src, 'http'))) {
    if (!isDir) {
      if (name !== SERVICE_SHAPE.httpSharedFile) say(`src/http/${name} is not in a resource folder`);
      continue;
    }
    const files = entries(join(src, 'http', name));
    if (!files.some((f) => f.name === 'routes.ts')) say(`src/http/${name}/routes.ts is missing`);
    for (const f of files) {
      if (!(SERVICE_SHAPE.resourceFiles as readonly string[]).includes(f.name))
        say(`src/http/${name}/${f.name} is not routes.ts or schemas.ts`);
    }
  }
  for (const [folder, pattern] of Object.entries(SERVICE_SHAPE.fileNames)) {
    for (const { name, isDir } of entries(join(src, folder))) {
      if (folder === 'db' && isDir && name === 'migrations') continue;
      if (isDir || !pattern.test(name)) say(`src/${folder}/${name} is not named like ${pattern.source}`);
    }
  }
  const index = join(src, 'index.ts');
  if (existsSync(index)) {
    for (const name of exportedNames(readFileSync(index, 'utf8'))) {
      if (!SERVICE_SHAPE.indexExport.test(name)) say(`index.ts exports ${name}, which is not part of a service's face`);
    }
  }
  return out.sort();
}
