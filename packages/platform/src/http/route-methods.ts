/** One route template (`/api/v1/service/tasks/:task_id`) and the methods registered on it. */
interface Template {
  segments: string[];
  pattern: RegExp;
  methods: Set<string>;
}

const isParam = (segment: string) => segment.startsWith(':');

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The template's segments and a pattern of the paths it serves (`:param` one segment, `*` the rest). */
function compile(url: string): Omit<Template, 'methods'> {
  const segments = url.replace(/\/+$/, '').split('/');
  const source = segments
    .map((segment) =>
      // `:token.ics`: a parameter, then a literal suffix in the same segment.
      isParam(segment)
        ? `[^/]+${escapeRegExp(segment.replace(/^:[A-Za-z0-9_]+/, ''))}`
        : segment === '*'
          ? '.*'
          : escapeRegExp(segment),
    )
    .join('/');
  return { segments, pattern: new RegExp(`^${source}/?$`) };
}

/**
 * Whether `specific` takes a path from `general` in the router: same length, the same static segments where both
 * have one, and at the first segment where they differ in kind, `specific` is static and `general` a parameter
 * (find-my-way's order: static before parametric).
 */
function shadows(specific: Template, general: Template): boolean {
  if (specific.segments.length !== general.segments.length) return false;
  let more = false;
  for (const [i, own] of specific.segments.entries()) {
    const other = general.segments[i] ?? '';
    if (own === '*' || other === '*') return false;
    if (!isParam(own) && !isParam(other) && own !== other) return false;
    if (!more && isParam(own) !== isParam(other)) {
      if (isParam(own)) return false;
      more = true;
    }
  }
  return more;
}

/**
 * Which methods serve a path, for 405 answers. Two ways a known path meets a method it does not serve: no route
 * matches at all (fastify answers 404, the not-found handler asks `allowed`), or a parametric route of that method
 * takes it (`GET /tasks/parse` reaching `GET /tasks/:task_id`, a 422 about an id the caller never meant): the
 * request hook asks `shadowing` first. Templates are compiled once; what shadows each is worked out on its first
 * request, after every route is registered.
 */
export class RouteMethods {
  private readonly templates = new Map<string, Template>();
  private readonly shadowedBy = new Map<string, Template[]>();

  add(url: string, method: string | string[]): void {
    const template = this.templates.get(url) ?? { ...compile(url), methods: new Set<string>() };
    for (const m of [method].flat()) template.methods.add(m);
    this.templates.set(url, template);
    this.shadowedBy.clear();
  }

  /** The methods of the routes that own `path`: the most specific templates matching it (as the router ranks them). */
  allowed(path: string): string[] {
    const matching = [...this.templates.values()].filter((template) => template.pattern.test(path));
    const owners = matching.filter((general) => !matching.some((other) => shadows(other, general)));
    return [...new Set(owners.flatMap((template) => [...template.methods]))];
  }

  /**
   * The methods of a more specific route that `path` names, when the router gave the request to the parametric
   * route `url` only because that route has `method` and the specific one does not; undefined otherwise.
   */
  shadowing(url: string, method: string, path: string): string[] | undefined {
    let candidates = this.shadowedBy.get(url);
    if (!candidates) {
      const general = this.templates.get(url);
      candidates = general ? [...this.templates.values()].filter((t) => t !== general && shadows(t, general)) : [];
      this.shadowedBy.set(url, candidates);
    }
    const named = candidates.find((template) => !template.methods.has(method) && template.pattern.test(path));
    return named && [...named.methods];
  }
}
