import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CONSOLE_UPSTREAM, grpcAddressVariable, SERVICE_NAMES } from '@routinely/platform';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GRPC_PEERS } from './support/grpc-peers.js';

// deploy/compose/compose.yaml cannot be run here (no container engine): it is checked against the Compose
// specification's JSON schema (as shipped by the dclint package) and against the Envoy file and the chart.
const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const compose = parse(read('deploy/compose/compose.yaml'), { merge: true });
const envoy = parse(read('deploy/envoy/envoy.yaml'), { maxAliasCount: -1 });
const values = parse(read('deploy/helm/routinely/values.yaml'));

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}
const services = compose.services as Record<string, ComposeService>;

describe('deploy/compose/compose.yaml', () => {
  it('is valid under the Compose specification schema', () => {
    // The package exports no subpath for it; the file sits beside its package.json.
    const manifest = createRequire(import.meta.url).resolve('dclint/package.json');
    const schema = JSON.parse(readFileSync(join(dirname(manifest), 'schemas', 'compose.schema.json'), 'utf8'));
    // The schema's own vocabulary ("deprecated", formats like "duration") is annotation only.
    // It is draft-07, Ajv's own; its `$schema` spells the meta-schema's address with https, which Ajv does not know.
    delete schema.$schema;
    const validate = new Ajv({ strict: false, validateFormats: false, allErrors: true }).compile(schema);
    // Docker Compose resolves YAML merge keys (`<<: *service`) before it validates; so does this parse.
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // The schema bites: a misspelt key is refused.
    const misspelt = structuredClone(compose);
    misspelt.services.envoy.port = ['8080:8080'];
    expect(validate(misspelt)).toBe(false);
  });

  it("runs each service from its own entry point under the name and port Envoy's cluster names", () => {
    const clusters = envoy.static_resources.clusters as {
      name: string;
      load_assignment: {
        endpoints: {
          lb_endpoints: { endpoint: { address: { socket_address: { address: string; port_value: number } } } }[];
        }[];
      };
    }[];
    for (const service of SERVICE_NAMES) {
      const cluster = clusters.find((c) => c.name === service);
      const address = cluster?.load_assignment.endpoints[0]?.lb_endpoints[0]?.endpoint.address.socket_address;
      const entry = services[String(address?.address)];
      expect(entry, `${service}: Envoy sends to ${address?.address}`).toBeDefined();
      expect(entry?.command).toEqual(['node', `services/${service}/dist/main.js`]);
      expect(entry?.environment?.PORT).toBe(String(address?.port_value));
      expect(entry?.healthcheck).toBeDefined();
      for (const peer of GRPC_PEERS) {
        expect(entry?.environment?.[grpcAddressVariable(peer)]).toBe(
          `routinely-${peer}:${entry?.environment?.GRPC_PORT}`,
        );
      }
      expect(entry?.environment).not.toHaveProperty(grpcAddressVariable('scheduler'));
      expect(services.envoy?.depends_on?.[String(address?.address)]).toEqual({ condition: 'service_healthy' });
    }
  });

  it("runs the console process under the name and port of Envoy's console cluster", () => {
    const clusters = envoy.static_resources.clusters as { name: string; load_assignment: unknown }[];
    const address = JSON.stringify(clusters.find((c) => c.name === CONSOLE_UPSTREAM)?.load_assignment);
    expect(address).toContain('"address":"routinely-console","port_value":8080');
    expect(services['routinely-console']?.command).toEqual(['node', 'apps/all-in-one/dist/console.js']);
    expect(services['routinely-console']?.environment?.PORT).toBe('8080');
    expect(services.envoy?.depends_on?.['routinely-console']).toEqual({ condition: 'service_healthy' });
  });

  it("runs the chart's Envoy image on the generated envoy.yaml", () => {
    expect(services.envoy?.image).toBe(`${values.envoy.image.repository}:${values.envoy.image.tag}`);
    expect(services.envoy?.volumes).toContain('../envoy/envoy.yaml:/etc/envoy/envoy.yaml:ro');
  });
});
