/* agent.h — the language servers (lsp.h) as the agent loop sees them: the
 * `diagnostics` and `lsp` (code navigation) tools as a tool source, and the after-edit and
 * before-final checks (agent/loop.h zagent_checks). Both borrow the zlsp; the run assembly
 * (cli/run_setup.c) owns it and hands &source and &checks to the agent. */
#ifndef ZERO_LSP_AGENT_H
#define ZERO_LSP_AGENT_H

#include "agent/loop.h"
#include "lsp/lsp.h"

#define ZLSP_TOOL "diagnostics"
#define ZLSP_NAV_TOOL "lsp" /* definition, references, hover, symbols */

typedef struct zlsp_agent {
  zlsp *lsp; /* borrowed */
  ztool_source source;
  zagent_checks checks;
} zlsp_agent;

void zlsp_agent_init(zlsp_agent *g, zlsp *lsp);

#endif
