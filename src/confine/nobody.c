/* nobody.c - the environment that keeps a command from waiting for a person
 * it cannot reach: no terminal, stdin /dev/null, so editors fail at once. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nobody.h"
#include "core/util.h"

/* Git runs an editor through the shell with the file appended ("$@"): this
 * says why on stderr and fails, which git turns into "there was a problem
 * with the editor" and stops. No single quote inside, nor $ or `: the
 * value is shown by env and quoted by shell scripts. */
#define NO_EDITOR                                                                          \
	"echo \"paddock: nobody can use an editor here (no terminal): give the text on "   \
	"the command line (git commit -m MESSAGE or -F FILE, git merge --no-edit, git "     \
	"rebase --continue with GIT_EDITOR=true, GIT_SEQUENCE_EDITOR=COMMAND for git "      \
	"rebase -i), or set GIT_EDITOR or EDITOR to a command that edits the file by "      \
	"itself\" >&2; false"

/* Programs that need a person at a terminal: a variable naming one of these
 * was inherited from the person's own settings, not set for this call. */
static const char *const terminal_programs[] = {
    "vi",	  "vim",	 "nvim",      "vim.basic", "vim.tiny", "vim.nox", "view",
    "nvi",	  "elvis",	 "vile",      "nano",	   "rnano",    "pico",	  "emacs",
    "emacs-nox",  "emacsclient", "joe",	      "jed",	   "jmacs",    "jstar",	  "jpico",
    "mcedit",	  "micro",	 "ne",	      "kak",	   "hx",       "helix",	  "mg",
    "zile",	  "editor",	 "sensible-editor",	   "select-editor",	  "gvim",
    "mvim",	  "code",	 "subl",      "gedit",	   "kate",     "mousepad", "xed",
    "less",	  "more",	 "most",      "lv",	   "pager",    "sensible-pager",
    NULL,
};

static const struct {
	const char *name, *value;
	bool keep_any; /* any value the call has is its own; else one naming a
			* terminal program is replaced */
} vars[] = {
    {"GIT_EDITOR", NO_EDITOR, false},
    {"GIT_SEQUENCE_EDITOR", NO_EDITOR, false},
    {"EDITOR", NO_EDITOR, false},
    {"VISUAL", NO_EDITOR, false},
    {"GIT_PAGER", "cat", false},
    {"PAGER", "cat", false},
    {"MANPAGER", "cat", false},
    {"SYSTEMD_PAGER", "cat", false},
    /* Prompts for a password or a yes, which nobody would answer. */
    {"GIT_TERMINAL_PROMPT", "0", true},
    {"GCM_INTERACTIVE", "never", true},
    {"DEBIAN_FRONTEND", "noninteractive", true},
    {"PIP_NO_INPUT", "1", true},
    /* git merge takes its default message instead of opening the editor. */
    {"GIT_MERGE_AUTOEDIT", "no", true},
};

bool pdk_nobody_terminal_program(const char *value)
{
	char word[256];
	size_t n = strcspn(value, " \t");
	const char *base;

	if (n == 0 || n >= sizeof(word))
		return false;
	memcpy(word, value, n);
	word[n] = '\0';
	base = strrchr(word, '/') ? strrchr(word, '/') + 1 : word;
	for (const char *const *p = terminal_programs; *p; p++)
		if (strcmp(base, *p) == 0)
			return true;
	return false;
}

int pdk_nobody_env(char ***ret)
{
	char **v = calloc(PDK_ARRAY_SIZE(vars) + 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(vars); i++) {
		const char *have = getenv(vars[i].name);

		if (have && (vars[i].keep_any || !pdk_nobody_terminal_program(have)))
			continue;
		if (asprintf(&v[k], "%s=%s", vars[i].name, vars[i].value) < 0) {
			v[k] = NULL;
			pdk_strv_freep(&v);
			return -ENOMEM;
		}
		k++;
	}
	*ret = v;
	return 0;
}
