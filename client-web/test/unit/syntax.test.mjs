// Every module of the page parses. The screens touch the DOM when imported, so
// the unit tests cannot import them; a syntax error there (a name declared
// twice, say) would otherwise first show in the browser tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const JS = new URL('../../public/js/', import.meta.url).pathname;
const modules = (dir) =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? modules(join(dir, n)) : n.endsWith('.js') ? [join(dir, n)] : []));

test('every module in public/js parses as an ES module', () => {
  const files = modules(JS);
  assert.ok(files.length > 20, `found ${files.length} modules`);
  for (const f of files) {
    try {
      execFileSync(process.execPath, ['--check', f], { stdio: 'pipe' });
    } catch (e) {
      assert.fail(`${f}: ${String(e.stderr || e.message).trim()}`);
    }
  }
});
