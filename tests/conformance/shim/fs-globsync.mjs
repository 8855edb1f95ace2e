// node:fs with a globSync(pattern, {cwd}) good enough for the conformance
// suite: '*' matches within one path segment, '**/' any number of whole
// directories, '?' one character. Returns paths relative to cwd, like
// node 22's fs.globSync; symlinked directories are not followed.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

function patternToRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') {
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else {
      re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp('^' + re + '$');
}

function walk(root, rel, out) {
  let entries;
  try {
    entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const child = rel ? rel + '/' + e.name : e.name;
    out.push(child);
    if (e.isDirectory()) walk(root, child, out);
  }
}

export function globSync(patterns, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const list = Array.isArray(patterns) ? patterns : [patterns];
  const regexps = list.map(patternToRegExp);
  const all = [];
  walk(cwd, '', all);
  return all.filter((p) => regexps.some((re) => re.test(p)));
}
