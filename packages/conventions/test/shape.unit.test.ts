import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportedNames, shapeDeviations } from '../src/shape.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const KNOWN = new URL('../known-shape-deviations.json', import.meta.url);

// The generator is a plain script (it runs before anything is built); its types are not checked here.
const { writeService } = (await import(new URL('../../../scripts/new-service.mjs', import.meta.url).href)) as {
  writeService(name: string, root?: string): string;
};

const scratch = mkdtempSync(join(tmpdir(), 'routinely-shape-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the service shape', () => {
  it('deviates nowhere beyond the known deviations, and those are still there (UPDATE_KNOWN=1 rewrites the list)', () => {
    const found = readdirSync(join(ROOT, 'services')).flatMap((service) => shapeDeviations(ROOT, service));
    if (process.env.UPDATE_KNOWN === '1') writeFileSync(KNOWN, `${JSON.stringify(found, null, 2)}\n`);
    const known: string[] = JSON.parse(readFileSync(KNOWN, 'utf8'));
    expect(
      found.filter((d) => !known.includes(d)),
      'new deviations: move the code into the shape',
    ).toEqual([]);
    expect(
      known.filter((d) => !found.includes(d)),
      'fixed: remove them from known-shape-deviations.json',
    ).toEqual([]);
  });

  it('is what scripts/new-service writes', () => {
    writeService('widget', scratch);
    expect(shapeDeviations(scratch, 'widget')).toEqual([]);
  });

  it('names each kind of deviation', () => {
    const dir = writeService('gadget', scratch);
    writeFileSync(join(dir, 'src/helpers.ts'), '');
    writeFileSync(join(dir, 'src/http/common.ts'), '');
    writeFileSync(join(dir, 'src/http/request.ts'), ''); // the one shared file http/ may hold: not listed
    writeFileSync(join(dir, 'src/http/gadget/more-routes.ts'), '');
    mkdirSync(join(dir, 'src/grpc'));
    writeFileSync(join(dir, 'src/grpc/task-client.ts'), '');
    rmSync(join(dir, 'test'), { recursive: true });
    writeFileSync(join(dir, 'src/index.ts'), "export { buildService, helper } from './app.js';\n");
    expect(shapeDeviations(scratch, 'gadget')).toEqual([
      "gadget: index.ts exports helper, which is not part of a service's face",
      'gadget: src/grpc/task-client.ts is not named like ^[a-z-]+-rpc\\.ts$',
      'gadget: src/helpers.ts belongs in a folder',
      'gadget: src/http/common.ts is not in a resource folder',
      'gadget: src/http/gadget/more-routes.ts is not routes.ts or schemas.ts',
      'gadget: test/ is missing',
    ]);
  });

  it('names a test/ without its harness or its drift test', () => {
    const dir = writeService('gizmo', scratch);
    rmSync(join(dir, 'test/harness.ts'));
    writeFileSync(join(dir, 'test/helpers.ts'), '');
    rmSync(join(dir, 'test/schema.test.ts'));
    expect(shapeDeviations(scratch, 'gizmo')).toEqual([
      'gizmo: test/harness.ts is missing',
      'gizmo: test/schema.test.ts is missing',
    ]);
  });

  it('reads the names an index exports, types and renames included', () => {
    expect(exportedNames("export { a, type B } from './x.js';\nexport type { C as D } from './y.js';")).toEqual([
      'a',
      'B',
      'D',
    ]);
  });
});
