/* app.h — the interactive UI's state and drawing, independent of threads and
 * of the terminal itself: agent events and keys go in, the screen renderer's
 * bytes come out (tui_app.scr.out). cli/cmd_tui.c drives it; the screen tests
 * drive it directly and feed the bytes to a virtual terminal.
 *
 * What is shown where:
 *   scrollback  user messages, the answer's final markdown blocks, finished
 *               tool cards (with diffs / output excerpts), collapsed
 *               reasoning, warnings and errors, slash command output
 *   live region the answer's unfinished tail, reasoning while it streams,
 *               running tool cards, the plan checklist, a permission prompt,
 *               queued messages, the side panel (Ctrl+B), the composer,
 *               completions, the status line
 */
#ifndef ZERO_UI_TUI_APP_H
#define ZERO_UI_TUI_APP_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/events.h"
#include "perm/engine.h"
#include "base/common.h"
#include "cli/tui_prompt.h"
#include "ui/tui/composer.h"
#include "ui/tui/keys.h"
#include "ui/tui/markdown.h"
#include "ui/tui/picker.h"
#include "ui/tui/screen.h"
#include "ui/tui/theme.h"

/* What a key asks the controller to do. */
typedef enum tui_action {
  TUI_ACT_NONE,
  TUI_ACT_SUBMIT,      /* *text: a message for the agent (or the queue when busy) */
  TUI_ACT_COMMAND,     /* *text: a slash command line ("/model gpt-4.1") */
  TUI_ACT_CANCEL,      /* cancel the running turn */
  TUI_ACT_PERMISSION,  /* the prompt was answered: see prompt.answer / .scope / .note */
  TUI_ACT_QUIT,
  TUI_ACT_SUSPEND,     /* Ctrl+Z */
  TUI_ACT_MODE,        /* Shift+Tab: the controller cycles the permission mode */
  TUI_ACT_LEAVE_SIDE,  /* Ctrl+C in an idle /btw side conversation: back to the main one */
} tui_action;

typedef struct tui_card {
  char *id, *name, *summary, *arguments;
  double started; /* monotonic seconds; reset when the call is allowed, so the
                     card's time is the tool's, not the wait for an answer */
  bool denied;
  bool decided; /* the permission decision came (until then it may wait for you) */
  char *live;   /* a running command's newest output (ZAEV_TOOL_OUTPUT), or NULL */
} tui_card;

#define TUI_CARD_LIVE_ROWS 5 /* rows of a running command's output under its card */
#define TUI_CARD_DIFF_ROWS 40     /* diff rows of an edit's card before "… K more lines" */
#define TUI_CARD_NEW_FILE_ROWS 12 /* the same for a new file (write_file) */

/* The turn on screen: what streams in until tui_app_turn_end. */
typedef struct tui_turn_view {
  bool busy;               /* a turn (or /compact) runs */
  double started;          /* monotonic seconds */
  int64_t tokens;          /* completion tokens counted so far */
  size_t stream_bytes;     /* text and reasoning streamed since the last usage report */
  bool shown;              /* the turn showed something: text, reasoning, a tool, an error */
  tui_md_stream md;        /* the answer's markdown, block by block */
  bool md_active;
  zbuf reasoning;          /* reasoning while it streams */
  double reasoning_started;
  ZVEC(tui_card) cards;    /* running tool calls */
} tui_turn_view;

/* Token counts of the session: the status line, the side panel, /usage,
 * /context. */
typedef struct tui_usage_view {
  int64_t context_tokens; /* prompt tokens of the last request */
  int64_t context_window; /* of the current model (0 = unknown), set by the controller */
  int64_t total_tokens;   /* the session */
  int64_t prompt_sum, completion_sum, cached_sum; /* the session, for /usage */
} tui_usage_view;

/* Completion of /commands and @files under the composer. */
typedef struct tui_completion {
  int sel;               /* selected suggestion */
  char **files;          /* workspace files for @ completion (lazy) */
  size_t nfiles;
  bool files_loaded;
  const char *workspace; /* borrowed from the controller */
  /* Custom slash commands (ext/commands.h) listed after the built-ins:
   * names with their slash, and their descriptions; borrowed from the
   * controller, which refreshes them when the extensions reload. */
  const char *const *custom_names;
  const char *const *custom_help;
  size_t ncustom;
} tui_completion;

/* What the status line and the side panel show besides the turn. */
typedef struct tui_status {
  /* The run's permission mode, owned by the controller (tui_controller.mode,
   * the one place it is held); the view only shows it. Points at a constant
   * ask until the controller points it at its own. */
  const zperm_mode *mode;
  char *model;
  char *session_id;
  bool side_panel;       /* Ctrl+B */
  bool side_chat;        /* a /btw side conversation is active */
  char *notice;          /* one-line notice in the status line until the next key */
  const char *loop;      /* the /loop state ("↻ loop 5m · next in 4m12s"), owned by the
                          * controller, or NULL */
} tui_status;

typedef struct tui_app {
  /* the screen */
  tui_theme th;
  tui_screen scr;
  int width, height;
  tw_lines commit;       /* lines for the scrollback at the next frame */
  double now;            /* monotonic seconds, set by the controller */
  /* what the live region shows */
  tui_turn_view turn;
  tui_usage_view usage;
  json_t *plan;          /* array of {step, status}, or NULL */
  bool plan_changed;
  char *expandable;      /* last collapsed text (Ctrl+O shows it), or NULL */
  tw_lines expand_rows;  /* ... or the last collapsed diff, rows as rendered (then first) */
  ZVEC(char *) queue;    /* messages typed while busy */
  ZVEC(char *) attachments; /* images for the next message (/image), as shown */
  tui_prompt prompt;     /* a permission prompt (cli/tui_prompt.h) */
  tui_picker picker;
  /* input */
  tui_composer comp;
  tui_completion completion;
  bool ctrl_c_armed;     /* a second Ctrl+C on an empty composer exits */
  tui_status status;
  bool replaying; /* a resumed session's transcript is shown: cards have no time */
} tui_app;

void tui_app_init(tui_app *a, int width, int height, const char *theme, tui_depth depth);
void tui_app_release(tui_app *a);
/* Handles one agent event (already on the UI thread). */
void tui_app_event(tui_app *a, const zagent_event *ev);
/* Handles one key; returns the action and, for SUBMIT / COMMAND, a string
 * in *text (caller frees). */
tui_action tui_app_key(tui_app *a, const tui_key *k, char **text);
/* Builds a frame into a->scr.out. */
void tui_app_render(tui_app *a);
void tui_app_resize(tui_app *a, int width, int height);

/* The turn starts / ends (the controller knows when the worker runs). */
void tui_app_turn_start(tui_app *a, double now);
void tui_app_turn_end(tui_app *a, const char *outcome_line);
/* Shows a permission prompt for a tool call; the answer comes back as
 * TUI_ACT_PERMISSION (prompt.answer, prompt.scope, prompt.note). The focus
 * starts on Deny. */
void tui_app_ask(tui_app *a, const tui_ask *q);
/* Opens a picker over labels / values (n of each, copied); choosing one
 * returns TUI_ACT_COMMAND with "<cmd> <value>". */
void tui_app_picker(tui_app *a, const char *cmd, const char *title, const char *const *labels,
                    const char *const *values, size_t n);
/* Text for the scrollback: one user-visible message (wrapped). style may be "". */
void tui_app_print(tui_app *a, const char *style, const char *text);
/* tui_app_print of a message formatted like printf. */
void tui_app_printf(tui_app *a, const char *style, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tui_app_vprintf(tui_app *a, const char *style, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
void tui_app_print_user(tui_app *a, const char *text);
/* Short description of a tool call from its arguments ("ls -la", "src/a.c"),
 * redacted (base/redact.h: keys and tokens in a command line show as
 * [REDACTED:…]). Caller frees. */
char *tui_tool_summary(const char *name, const char *arguments);

#endif
