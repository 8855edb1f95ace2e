/* tui_style.c — /style: the output style of the TUI's answers (ext/styles.h).
 * `/style` opens a picker over the styles (the current one marked), `/style
 * NAME` switches; the style's text joins the system prompt from the next
 * message on (tui_turns.c builds it with tui_style_section). The choice
 * lasts for this run. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/common.h"
#include "cli/tui_controller.h"
#include "ext/styles.h"

static void pick(tui_controller *c, const zstyles *ss) {
  strvec labels = STRVEC_INIT, values = STRVEC_INIT;
  const char *cur = c->style_name ? c->style_name : "default";
  for (size_t i = 0; i < ss->n; i++) {
    const zstyle *st = &ss->v[i];
    strvec_pushf(&labels, "%s %s%s — %s", strcasecmp(st->name, cur) ? " " : "●", st->name,
                 st->path ? (st->project ? " (project)" : " (user)") : "", st->description);
    strvec_push(&values, st->name);
  }
  tui_app_picker(&c->app, "/style", "Output style", (const char *const *)labels.v,
                 (const char *const *)values.v, labels.nr);
  strvec_clear(&labels);
  strvec_clear(&values);
}

void tui_style_command(tui_controller *c, const char *arg) {
  zstyles ss;
  zstyles_load(&ss, c->rs.workspace);
  for (size_t i = 0; i < ss.problems.nr; i++) tui_warn(c, ss.problems.v[i]);
  const zstyle *st = *arg ? zstyles_find(&ss, arg) : NULL;
  zerr err = ZERR_INIT;
  char *text = st ? zstyle_text(st, &err) : NULL;
  if (!*arg) {
    pick(c, &ss);
  } else if (!st) {
    zbuf names = ZBUF_INIT;
    for (size_t i = 0; i < ss.n; i++) zbuf_addf(&names, "%s%s", i ? ", " : "", ss.v[i].name);
    tui_say(c,
            "✗ Unknown output style %s. Styles: %s (add your own as NAME.md in "
            ".zero/output-styles/ or ~/.config/zero/output-styles/).",
            arg, names.data);
    zbuf_release(&names);
  } else if (!text) {
    tui_say(c, "✗ Cannot read the style %s: %s", st->name, err.msg);
  } else {
    free(c->style_name);
    free(c->style_text);
    c->style_name = xstrdup(st->name);
    c->style_text = steal_pointer(&text);
    free(c->system_prompt); /* built again, with the style, for the next message */
    c->system_prompt = NULL;
    tui_say(c, "Output style: %s%s", c->style_name,
            c->worker.running ? " (from the next message)" : ".");
  }
  free(text);
  zstyles_release(&ss);
}

char *tui_style_section(const tui_controller *c) {
  return zstyle_prompt_section(c->style_name, c->style_text);
}

void tui_style_release(tui_controller *c) {
  free(c->style_name);
  free(c->style_text);
  c->style_name = c->style_text = NULL;
}
