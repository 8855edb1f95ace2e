// node --import entry: the conformance suite imports `globSync` from 'fs',
// which node gained in 22. On an older node this registers a resolve hook
// that hands the suite an 'fs' with globSync added (fs-globsync.mjs).
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./hooks.mjs', import.meta.url);
