// Module resolve hook: every `import ... from 'fs'` outside the shim itself
// resolves to fs-globsync.mjs, which re-exports node:fs plus globSync.
const SHIM = new URL('./fs-globsync.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  const wantsFs = specifier === 'fs' || specifier === 'node:fs';
  if (wantsFs && context.parentURL !== SHIM) return { url: SHIM, shortCircuit: true };
  return nextResolve(specifier, context);
}
