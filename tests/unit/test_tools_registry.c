/* test_tools_registry.c — the tool table, schemas, argument checking, the
 * output cap and the path rules every tool relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/json.h"
#include "test_tools_util.h"

/* Every built-in tool, sorted. */
static const char *const tool_names[] = {
    "apply_patch", "edit_file", "exec_command", "glob", "grep", "list_directory",
    "read_file",   "update_plan", "view_image", "web_fetch", "write_file", "write_stdin",
};

static void all_tools_are_sorted_and_findable(void **state) {
  (void)state;
  size_t n = 0;
  const ztool *const *all = ztool_all(&n);
  assert_int_equal(n, ZARRAY_LEN(tool_names));
  for (size_t i = 0; i < n; i++) assert_string_equal(all[i]->name, tool_names[i]);
  for (size_t i = 1; i < n; i++) assert_true(strcmp(all[i - 1]->name, all[i]->name) < 0);
  for (size_t i = 0; i < n; i++) assert_ptr_equal(ztool_find(all[i]->name), all[i]);
  assert_null(ztool_find("nope"));
  assert_null(ztool_find(NULL));
}

static void side_effects_match_the_contract(void **state) {
  (void)state;
  struct { const char *name; zside_effect se; bool ro; } want[] = {
      {"read_file", ZSIDE_READ, true},       {"list_directory", ZSIDE_READ, true},
      {"write_file", ZSIDE_WRITE, false},    {"edit_file", ZSIDE_WRITE, false},
      {"exec_command", ZSIDE_SHELL, false},  {"update_plan", ZSIDE_NONE, true},
      {"apply_patch", ZSIDE_WRITE, false},   {"write_stdin", ZSIDE_SHELL, false},
      {"grep", ZSIDE_READ, true},            {"glob", ZSIDE_READ, true},
      {"view_image", ZSIDE_READ, true},      {"web_fetch", ZSIDE_NETWORK, true},
  };
  for (size_t i = 0; i < ZARRAY_LEN(want); i++) {
    const ztool *t = ztool_find(want[i].name);
    assert_non_null(t);
    assert_int_equal(t->side_effect, want[i].se);
    assert_int_equal(t->read_only, want[i].ro);
    assert_true(strlen(t->description) > 40);
  }
  assert_string_equal(zside_effect_name(ZSIDE_NONE), "none");
  assert_string_equal(zside_effect_name(ZSIDE_READ), "read");
  assert_string_equal(zside_effect_name(ZSIDE_WRITE), "write");
  assert_string_equal(zside_effect_name(ZSIDE_SHELL), "shell");
  assert_string_equal(zside_effect_name(ZSIDE_NETWORK), "network");
}

static void schemas_are_closed_objects_with_described_properties(void **state) {
  (void)state;
  json_t *arr = ztool_schemas(NULL, NULL);
  assert_int_equal(json_array_size(arr), ZARRAY_LEN(tool_names));
  size_t i;
  json_t *s;
  json_array_foreach(arr, i, s) {
    assert_non_null(zjson_str(s, "name"));
    assert_non_null(zjson_str(s, "description"));
    json_t *p = json_object_get(s, "parameters");
    assert_string_equal(zjson_str(p, "type"), "object");
    assert_true(json_is_false(json_object_get(p, "additionalProperties")));
    const char *k;
    json_t *prop;
    json_object_foreach(json_object_get(p, "properties"), k, prop) {
      assert_non_null(zjson_str(prop, "description"));
    }
  }
  json_decref(arr);
}

static bool only_read_only(const ztool *t, void *ud) {
  (void)ud;
  return t->read_only;
}

static void schemas_filter_selects_tools(void **state) {
  (void)state;
  json_t *arr = ztool_schemas(only_read_only, NULL);
  /* glob, grep, list_directory, read_file, update_plan, view_image, web_fetch */
  assert_int_equal(json_array_size(arr), 7);
  json_decref(arr);
}

static void malformed_json_is_an_error_with_column(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "read_file", "{\"path\": "), -1);
  assert_true(f->res.is_error);
  assert_output_contains(f, "invalid arguments for read_file: ");
  assert_output_contains(f, "at column ");
  assert_output_contains(f, "send a JSON object matching the schema");
}

static void non_object_arguments_are_refused(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "read_file", "[1,2]"), -1);
  assert_output_contains(f, "expected a JSON object, got array");
  assert_int_equal(tfx_run(f, "read_file", "\"a.txt\""), -1);
  assert_output_contains(f, "got string");
}

static void unknown_property_is_named_with_the_allowed_ones(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"a\",\"file\":\"b\"}"), -1);
  assert_output_contains(f, "unknown property \"file\"");
  assert_output_contains(f, "allowed properties: path, offset, limit");
}

static void missing_required_and_wrong_types_name_the_property(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "write_file", "{\"path\":\"a\"}"), -1);
  assert_output_contains(f, "missing required property \"content\"");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":5}"), -1);
  assert_output_contains(f, "property \"path\" must be a string, got integer");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"a\",\"offset\":\"x\"}"), -1);
  assert_output_contains(f, "property \"offset\" must be an integer, got string");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"a\",\"offset\":0}"), -1);
  assert_output_contains(f, "property \"offset\" must be at least 1, got 0");
  assert_int_equal(tfx_run(f, "list_directory", "{\"max_depth\":9}"), -1);
  assert_output_contains(f, "property \"max_depth\" must be at most 5, got 9");
  /* "done" is Go zero's word for completed (issue 18); an unknown status is still refused */
  assert_int_equal(tfx_run(f, "update_plan", "{\"plan\":[{\"step\":\"a\",\"status\":\"finished\"}]}"),
                   -1);
  assert_output_contains(f, "property \"plan[0].status\" must be one of");
  assert_int_equal(tfx_run(f, "update_plan", "{\"plan\":[{\"step\":\"a\",\"status\":\"pending\","
                                              "\"x\":1}]}"),
                   -1);
  assert_output_contains(f, "unknown property \"plan[0].x\"");
}

static void obvious_scalars_are_coerced(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "a.txt", "1\n2\n3\n");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"a.txt\",\"offset\":\"2\",\"limit\":1.0}"),
                   0);
  assert_output_contains(f, "(lines 2-2 of 3)");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"a.txt\",\"offset\":null}"), 0);
  assert_output_contains(f, "File: a.txt (3 lines)");
  assert_int_equal(tfx_run(f, "list_directory", "{\"recursive\":\"true\"}"), 0);
}

/* The names models use for other agents' tools (and Go zero accepts) reach
 * the schema's property; a conflicting one is still refused. */
static void argument_aliases_reach_the_schema_names(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "a.txt", "1\n2\n3\n4\n");
  const char *paths[] = {"file_path", "file", "filepath", "filename"};
  for (size_t i = 0; i < ZARRAY_LEN(paths); i++) {
    assert_int_equal(tfx_run(f, "read_file", "{\"%s\":\"a.txt\"}", paths[i]), 0);
    assert_output_contains(f, "File: a.txt (4 lines)");
  }
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"a.txt\",\"start_line\":2,\"end_line\":3}"),
                   0);
  assert_output_contains(f, "(lines 2-3 of 4)");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"a.txt\",\"offset\":\"3\",\"end_line\":\"3\"}"),
                   0);
  assert_output_contains(f, "(lines 3-3 of 4)");
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"\",\"file\":\"a.txt\",\"max_lines\":1}"), 0);
  assert_output_contains(f, "(lines 1-1 of 4)");

  assert_int_equal(tfx_run(f, "write_file", "{\"file_path\":\"b.txt\",\"contents\":\"hi\\n\"}"), 0);
  char *b = tfx_read(f, "b.txt");
  assert_string_equal(b, "hi\n");
  free(b);
  assert_int_equal(tfx_run(f, "edit_file", "{\"file\":\"b.txt\",\"old_str\":\"hi\",\"new_str\":\"yo\"}"),
                   0);
  b = tfx_read(f, "b.txt");
  assert_string_equal(b, "yo\n");
  free(b);
  assert_int_equal(tfx_run(f, "apply_patch", "{\"patch\":\"*** Begin Patch\\n*** Add File: c.txt\\n"
                                              "+c\\n*** End Patch\"}"),
                   0);
  assert_int_equal(tfx_run(f, "apply_patch", "{\"diff\":\"--- a/c.txt\\n+++ b/c.txt\\n@@ -1 +1 @@\\n"
                                              "-c\\n+d\\n\"}"),
                   0);
  b = tfx_read(f, "c.txt");
  assert_string_equal(b, "d\n");
  free(b);
  assert_int_equal(tfx_run(f, "grep", "{\"query\":\"yo\",\"output_mode\":\"content\"}"), 0);
  assert_output_contains(f, "b.txt:1:yo");
  assert_int_equal(tfx_run(f, "grep", "{\"pattern\":\"YO\",\"-i\":true,\"-B\":1,"
                                       "\"output_mode\":\"content\",\"path\":\"b.txt\"}"),
                   0);
  assert_output_contains(f, "b.txt:1:yo");
  assert_int_equal(tfx_run(f, "glob", "{\"glob\":\"*.txt\"}"), 0);
  assert_output_contains(f, "c.txt");
  assert_int_equal(tfx_run(f, "list_directory", "{\"dir\":\".\"}"), 0);
  assert_output_contains(f, "a.txt");

  /* The same value twice is one argument; two different ones are refused. */
  assert_int_equal(tfx_run(f, "read_file", "{\"file\":\"a.txt\",\"file_path\":\"a.txt\"}"), 0);
  assert_int_equal(tfx_run(f, "read_file", "{\"path\":\"a.txt\",\"file\":\"b.txt\"}"), -1);
  assert_output_contains(f, "unknown property \"file\"");
  assert_int_equal(tfx_run(f, "read_file", "{\"file\":\"b.txt\",\"file_path\":\"a.txt\"}"), -1);
  assert_output_contains(f, "unknown property \"file\"");
  /* Displays (TUI cards, prompts, the rewind plan) read the same names. */
  json_t *shown = ztool_load_args("exec_command", "{\"script\":\"make\",\"cwd\":\"src\"}");
  assert_string_equal(zjson_str(shown, "cmd"), "make");
  assert_string_equal(zjson_str(shown, "workdir"), "src");
  json_decref(shown);
  assert_null(ztool_load_args("exec_command", "[1]"));
  assert_null(ztool_load_args("exec_command", NULL));
  shown = ztool_load_args("no_such_tool", "{\"script\":\"x\"}");
  assert_string_equal(zjson_str(shown, "script"), "x");
  json_decref(shown);
  /* An alias of another tool is not accepted. */
  assert_int_equal(tfx_run(f, "list_directory", "{\"file_path\":\".\"}"), -1);
  assert_output_contains(f, "unknown property \"file_path\"");
}

static void empty_arguments_mean_an_empty_object(void **state) {
  tfx *f = *state;
  tfx_write_str(f, "x.txt", "x\n");
  assert_int_equal(tfx_run(f, "list_directory", "   \n"), 0);
  assert_output_contains(f, "x.txt");
  ztool_result_release(&f->res);
  assert_int_equal(ztool_invoke(&f->ctx, "list_directory", NULL, &f->res), 0);
  assert_int_equal(tfx_run(f, "read_file", "%s", ""), -1);
  assert_output_contains(f, "missing required property \"path\"");
}

static void unknown_tool_lists_the_available_ones(void **state) {
  tfx *f = *state;
  assert_int_equal(tfx_run(f, "bash", "{}"), -1);
  assert_output_contains(f, "unknown tool \"bash\"");
  assert_output_contains(f, "read_file");
}

static void output_is_capped_with_a_notice(void **state) {
  tfx *f = *state;
  for (int i = 0; i < 200; i++) {
    char name[64];
    snprintf(name, sizeof name, "file-with-a-long-name-%03d.txt", i);
    tfx_write_str(f, name, "");
  }
  f->ctx.output_cap = 2000;
  assert_int_equal(tfx_run(f, "list_directory", "{}"), 0);
  assert_true(f->res.truncated);
  assert_true(f->res.output.len <= 2000);
  assert_output_contains(f, "[output truncated: showing the first");
  assert_output_contains(f, "file-with-a-long-name-000.txt\n");
  assert_true(zbuf_ends_with(&f->res.output, "file-with-a-long-name-199.txt"));
  assert_true(zutf8_valid(f->res.output.data, f->res.output.len));

  /* A tiny cap keeps only a head. */
  f->ctx.output_cap = 300;
  assert_int_equal(tfx_run(f, "list_directory", "{}"), 0);
  assert_true(f->res.output.len <= 300);
  assert_output_contains(f, "and the last 0 of");
}

static void garbage_never_crashes(void **state) {
  tfx *f = *state;
  const char *inputs[] = {"{", "}", "nul", "{\"a\":\"\\u0000\"}", "{\"path\":{}}",
                          "{\"plan\":{}}", "{\"plan\":[1]}", "123", "null", "{\"cmd\":[]}",
                          "\xff\xfe", "{\"path\":\"\\ud800\"}"};
  size_t n = 0;
  const ztool *const *all = ztool_all(&n);
  for (size_t t = 0; t < n; t++)
    for (size_t i = 0; i < ZARRAY_LEN(inputs); i++) {
      tfx_run(f, all[t]->name, "%s", inputs[i]);
      assert_true(f->res.is_error);
      assert_true(f->res.output.len > 0);
      assert_true(zutf8_valid(f->res.output.data, f->res.output.len));
    }
}

static void resolve_path_is_relative_to_the_workspace(void **state) {
  tfx *f = *state;
  char *p = ztool_resolve_path(&f->ctx, "a/./b/../c");
  char *want = tfx_path(f, "a/c");
  assert_string_equal(p, want);
  free(p);
  free(want);
  p = ztool_resolve_path(&f->ctx, "");
  assert_string_equal(p, f->ws);
  free(p);
  p = ztool_resolve_path(&f->ctx, "/etc//hosts");
  assert_string_equal(p, "/etc/hosts");
  free(p);
}

static void writable_paths_follow_symlinks_of_the_existing_part(void **state) {
  tfx *f = *state;
  char *in = tfx_path(f, "new/deep/file.txt");
  assert_true(ztool_path_writable(&f->ctx, in));
  assert_true(ztool_path_writable(&f->ctx, f->ws));
  assert_false(ztool_path_writable(&f->ctx, f->out));
  assert_false(ztool_path_writable(&f->ctx, "/etc/passwd"));

  char *link = tfx_path(f, "escape");
  assert_int_equal(symlink(f->out, link), 0);
  char *via = tfx_path(f, "escape/x.txt");
  assert_false(ztool_path_writable(&f->ctx, via));

  char *dangling = tfx_path(f, "dangling");
  assert_int_equal(symlink("/nonexistent-zero-target/x", dangling), 0);
  assert_false(ztool_path_writable(&f->ctx, dangling));

  const char *dirs[] = {f->out};
  f->ctx.add_dirs = dirs;
  f->ctx.n_add_dirs = 1;
  assert_true(ztool_path_writable(&f->ctx, via));
  assert_true(ztool_path_writable(&f->ctx, f->out));
  free(in);
  free(link);
  free(via);
  free(dangling);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(all_tools_are_sorted_and_findable),
      cmocka_unit_test(side_effects_match_the_contract),
      cmocka_unit_test(schemas_are_closed_objects_with_described_properties),
      cmocka_unit_test(schemas_filter_selects_tools),
      TFX_TEST(malformed_json_is_an_error_with_column),
      TFX_TEST(non_object_arguments_are_refused),
      TFX_TEST(unknown_property_is_named_with_the_allowed_ones),
      TFX_TEST(missing_required_and_wrong_types_name_the_property),
      TFX_TEST(obvious_scalars_are_coerced),
      TFX_TEST(argument_aliases_reach_the_schema_names),
      TFX_TEST(empty_arguments_mean_an_empty_object),
      TFX_TEST(unknown_tool_lists_the_available_ones),
      TFX_TEST(output_is_capped_with_a_notice),
      TFX_TEST(garbage_never_crashes),
      TFX_TEST(resolve_path_is_relative_to_the_workspace),
      TFX_TEST(writable_paths_follow_symlinks_of_the_existing_part),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
