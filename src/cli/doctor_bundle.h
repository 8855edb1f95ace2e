/* doctor_bundle.h — `zero doctor --bundle`: one file to attach to a bug
 * report (docs/cli.md "Debug log"). A ustar archive (base/tar.h) under
 * $XDG_STATE_HOME/zero/reports/ holding, under zero-report/:
 *   README.txt      what the bundle is and what it leaves out
 *   version.txt     what `zero --version` prints, and the kernel
 *   doctor.json     the doctor's checks, as --json prints them
 *   config/user.json, config/project.json   the config files, redacted
 *   logs/zero.log…  the debug log and its rotated files (base/log.h)
 * Everything goes through the redactor (base/redact.h) on the way in. */
#ifndef ZERO_CLI_DOCTOR_BUNDLE_H
#define ZERO_CLI_DOCTOR_BUNDLE_H

#include <jansson.h>

#include "base/err.h"

/* Writes the bundle; checks is the doctor's rows, user_cfg / project_cfg the
 * config files (either may be NULL or absent). Returns the archive's path
 * (caller frees), or NULL with err. */
char *zcli_doctor_bundle(const json_t *checks, const char *user_cfg, const char *project_cfg,
                         zerr *err);

#endif
