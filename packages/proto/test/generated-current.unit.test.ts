import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const pkg = new URL('..', import.meta.url).pathname;
const protoDir = join(pkg, '../../proto');
/** Refreshed on purpose only (`pnpm --filter @routinely/proto run baseline`) when a breaking change is agreed. */
const baseline = join(pkg, 'baseline/proto-image.binpb');
const buf = (args: string[], stdio: 'pipe' | 'inherit' = 'inherit') =>
  execFileSync(join(pkg, 'node_modules/.bin/buf'), args, { stdio });

function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  (function walk(d: string) {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full)] = readFileSync(full, 'utf8');
    }
  })(dir);
  return out;
}

describe('generated protobuf code', () => {
  it('is what buf and ts-proto generate from proto/ (run `npm run generate` after editing a .proto)', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'proto-'));
    try {
      cpSync(join(pkg, 'buf.gen.yaml'), join(scratch, 'buf.gen.yaml'));
      const template = readFileSync(join(pkg, 'buf.gen.yaml'), 'utf8').replace(
        'local: node_modules/.bin/protoc-gen-ts_proto',
        `local: ${join(pkg, 'node_modules/.bin/protoc-gen-ts_proto')}`,
      );
      execFileSync(join(pkg, 'node_modules/.bin/buf'), ['generate', join(pkg, '../../proto'), '--template', template], {
        cwd: scratch,
      });
      expect(files(join(scratch, 'src/gen'))).toEqual(files(join(pkg, 'src/gen')));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('has no breaking change against the committed baseline image (FILE rules)', () => {
    expect(() => buf(['breaking', protoDir, '--against', baseline])).not.toThrow();
  });

  it('fails buf breaking when a field is removed, so the gate above can fail', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'proto-breaking-'));
    try {
      cpSync(protoDir, scratch, { recursive: true });
      const file = join(scratch, 'task/v1/task.proto');
      const source = readFileSync(file, 'utf8');
      const edited = source.replace(/^\s*string title = \d+;\n/m, '');
      expect(edited).not.toBe(source);
      writeFileSync(file, edited);
      let report = '';
      try {
        buf(['breaking', scratch, '--against', baseline], 'pipe');
      } catch (error) {
        report = String((error as { stdout?: Buffer }).stdout);
      }
      expect(report).toMatch(/Previously present field "5" with name "title"/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('passes buf lint', () => {
    expect(() => execFileSync(join(pkg, 'node_modules/.bin/buf'), ['lint', join(pkg, '../../proto')])).not.toThrow();
  });
});
