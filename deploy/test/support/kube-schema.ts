import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { KubeObject } from './helm.js';

// Every rendered object is checked twice against the Kubernetes API as published in `kubernetes-models`
// (and `@kubernetes-models/prometheus-operator` for ServiceMonitor):
// 1. its JSON-schema validator (types, required fields, formats), which ignores unknown fields, and
// 2. the same package's TypeScript interfaces, where an object literal with a field the API does not have
//    is an error: a misspelt `readinessProb` or a field at the wrong level fails here.

function modelModule(apiVersion: string, kind: string): string {
  if (apiVersion.startsWith('monitoring.coreos.com/'))
    return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

interface Model {
  validate(): void;
}

/** Problems the JSON-schema validator finds, one line per object. */
export async function schemaProblems(objects: KubeObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    const label = `${object.kind}/${object.metadata?.name}`;
    let module: Record<string, new (data: unknown) => Model>;
    try {
      module = (await import(modelModule(object.apiVersion, object.kind))) as typeof module;
    } catch {
      problems.push(`${label}: no model for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    const Model = module[object.kind];
    if (!Model) {
      problems.push(`${label}: no model class ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${label}: ${(error as Error).message}`);
    }
  }
  return problems;
}

const declarations = new Map<string, ts.SourceFile>();

/** Problems the TypeScript interfaces find (unknown fields, wrong types, missing required fields). */
export function typeProblems(objects: KubeObject[]): string[] {
  const file = fileURLToPath(new URL('./__rendered_objects__.ts', import.meta.url));
  const lines: string[] = [];
  objects.forEach((object, index) => {
    lines.push(`import type { I${object.kind} as T${index} } from '${modelModule(object.apiVersion, object.kind)}';`);
  });
  objects.forEach((object, index) => {
    lines.push(`export const o${index}: T${index} = ${JSON.stringify(object, null, 2)};`);
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    // Not the DOM: the models need only the language's own declarations.
    lib: ['lib.es2022.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    if (name === file) return ts.createSourceFile(name, source, version);
    // The models' declarations are parsed once per test file, not once per check.
    let parsed = declarations.get(name);
    if (!parsed) {
      parsed = getSourceFile(name, version, ...rest);
      if (parsed) declarations.set(name, parsed);
    }
    return parsed;
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const sourceFile = program.getSourceFile(file);
  if (!sourceFile) throw new Error('the rendered objects did not compile');
  const startLines = objects.map(
    (_, index) => sourceFile.getLineAndCharacterOfPosition(source.indexOf(`export const o${index}:`)).line,
  );
  return ts.getPreEmitDiagnostics(program, sourceFile).map((diagnostic) => {
    const line = diagnostic.start === undefined ? 0 : sourceFile.getLineAndCharacterOfPosition(diagnostic.start).line;
    const object = objects[startLines.findLastIndex((start) => start <= line)];
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    return object ? `${object.kind}/${object.metadata?.name}: ${message}` : message;
  });
}
