// The console's build: one HTML entry, hashed assets under /assets (served immutable, contract "Web console"),
// no inline script (the CSP forbids it) and nothing fetched from another origin. `npm run dev` proxies the API
// to an all-in-one on CONSOLE_API_URL (default :8080) for working on the screens.
import optimizeLocales from '@react-aria/optimize-locales-plugin';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/',
  // The console speaks English: React Aria's strings for its other 30-odd languages stay out of the bundle.
  plugins: [optimizeLocales.vite({ locales: ['en-US'] })],
  build: {
    target: 'es2022',
    outDir: 'dist',
    assetsDir: 'assets',
    sourcemap: false,
    // Inlining small assets as data: URIs would need img-src data: in the CSP; keep every asset a file.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rolldownOptions: {
      // Libraries marked "use client" for server components: the marker means nothing in a browser bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    proxy: { '/api': process.env.CONSOLE_API_URL ?? 'http://127.0.0.1:8080' },
  },
});
