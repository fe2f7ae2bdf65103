// ESLint's recommended rules, nothing more (no plugins): the page in the
// browser, the tests and tools in Node.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/', 'test/fixtures/'] },
  js.configs.recommended,
  // Omitting fields by destructuring (`const { a: _, ...rest } = x`) is how a copy leaves some out.
  { rules: { 'no-unused-vars': ['error', { ignoreRestSiblings: true }] } },
  {
    files: ['public/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    files: ['public/sw.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.serviceworker } },
  },
  {
    files: ['test/**/*.mjs', 'eslint.config.js', 'tools/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
  },
];
