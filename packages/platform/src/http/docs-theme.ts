/** The docs page's brand: a small logo (inline SVG, allowed by the docs CSP) and a stylesheet over swagger-ui's. */
export const DOCS_LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="36" viewBox="0 0 180 36">
<rect x="2" y="4" width="28" height="28" rx="7" fill="#0f766e"/>
<path d="M9 18.5l5 5 9-11" fill="none" stroke="#fff" stroke-width="3.2" stroke-linecap="round" stroke-linejoin="round"/>
<text x="40" y="25" font-family="system-ui,-apple-system,Segoe UI,sans-serif" font-size="19" font-weight="650"
 fill="#f8fafc">Routinely API</text></svg>`;

export const DOCS_THEME_CSS = `
.swagger-ui .topbar { background: #134e4a; padding: 8px 0; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .info .title { color: #0f766e; }
.swagger-ui .info .markdown table { border-collapse: collapse; }
.swagger-ui .info .markdown td, .swagger-ui .info .markdown th { border: 1px solid #cbd5e1; padding: 4px 8px; }
.swagger-ui .info .markdown pre { background: #0f172a; color: #e2e8f0; padding: 12px; border-radius: 6px; }
.swagger-ui .btn.authorize { color: #0f766e; border-color: #0f766e; }
.swagger-ui .btn.authorize svg { fill: #0f766e; }
`;
