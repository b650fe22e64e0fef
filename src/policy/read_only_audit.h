/* read_only_audit.h - the audit of the read-only list: for each entry (by its
 * first words), the options that make it execute a program, write, or read
 * configuration that can execute, and why. Any one of them cancels read-only
 * for the call. Matching: an option ending in '=' matches "--opt=..." and
 * "--opt VALUE"; "-X" also matches a short-option cluster holding X ("-Ox");
 * a word without a leading '-' matches that positional word anywhere after
 * the entry. Included by src/policy/policy_data.c; tests/unit/check_policy.c
 * runs every row. */
struct pdk_ro_cancel {
	const char *entry;  /* "git ls-remote", "sort", "tar" */
	const char *option; /* "--upload-pack=", "-O", "add" */
	const char *why;
};

static const struct pdk_ro_cancel pdk_ro_audit[] = {
    {"git", "-c", "sets configuration for the call, which can name a program (core.pager, core.fsmonitor)"},
    {"git", "--config-env=", "sets configuration for the call from the environment"},
    {"git", "--exec-path=", "runs git's helpers from another directory"},
    {"git ls-remote", "--upload-pack=", "runs the program named on the remote side, which is here for a local path"},
    {"git ls-remote", "--receive-pack=", "runs the program named"},
    {"git archive", "--exec=", "runs the program named as git-upload-archive"},
    {"git grep", "-O", "opens the matching files in the pager named"},
    {"git grep", "--open-files-in-pager=", "opens the matching files in the pager named"},
    {"git diff", "--ext-diff", "runs the external diff program the configuration names"},
    {"git log", "--ext-diff", "runs the external diff program the configuration names"},
    {"git show", "--ext-diff", "runs the external diff program the configuration names"},
    {"git diff", "--textconv", "runs the textconv programs the configuration names"},
    {"git log", "--textconv", "runs the textconv programs the configuration names"},
    {"git show", "--textconv", "runs the textconv programs the configuration names"},
    {"git reflog", "expire", "deletes reflog entries"},
    {"git reflog", "delete", "deletes reflog entries"},
    {"git remote", "add", "adds a remote to the configuration"},
    {"git remote", "set-url", "changes a remote's URL"},
    {"git remote", "remove", "removes a remote"},
    {"git remote", "rm", "removes a remote"},
    {"git remote", "rename", "renames a remote"},
    {"git remote", "prune", "deletes remote-tracking branches"},
    {"git remote", "set-head", "changes a remote's HEAD"},
    {"git remote", "set-branches", "changes what a remote fetches"},
    {"git remote", "update", "fetches from the network and writes refs"},
    {"git fsck", "--lost-found", "writes dangling objects into .git/lost-found"},
    {"sort", "--compress-program=", "runs the program named to compress temporary files"},
    {"tar", "-I", "runs the program named to compress or decompress"},
    {"tar", "--use-compress-program=", "runs the program named to compress or decompress"},
    {"tar", "--checkpoint-action=", "exec= runs a command at each checkpoint"},
    {"tar", "--to-command=", "pipes each file to the command named"},
    {"tar", "--info-script=", "runs the script named at the end of each volume"},
    {"tar", "--new-volume-script=", "runs the script named at the end of each volume"},
    {"tar", "-F", "runs the script named at the end of each volume"},
    {"tar", "--rsh-command=", "runs the program named to reach a remote archive"},
    {"tar", "-x", "extracts files: writes"},
    {"tar", "--extract", "extracts files: writes"},
    {"npm pack", "--dry-run", "runs the package's prepack, prepare and postpack scripts all the same"},
    {"cargo", "--version", "runs the toolchain that rust-toolchain.toml names, which the project chooses"},
    {"cargo", "-V", "runs the toolchain that rust-toolchain.toml names, which the project chooses"},
    {"rustc", "--version", "runs the toolchain that rust-toolchain.toml names, which the project chooses"},
    {"ip", "add", "changes the network configuration"},
    {"ip", "del", "changes the network configuration"},
    {"ip", "delete", "changes the network configuration"},
    {"ip", "flush", "changes the network configuration"},
    {"ip", "change", "changes the network configuration"},
    {"ip", "replace", "changes the network configuration"},
    {"ip", "set", "changes the network configuration"},
    {"go env", "-w", "writes the go environment file"},
    {"go env", "-u", "writes the go environment file"},
    {"info", "-o", "writes the output file named"},
    {"info", "--output=", "writes the output file named"},
    {"less", "-k", "reads a lesskey file, which can run commands"},
    {"less", "--lesskey-file=", "reads a lesskey file, which can run commands"},
};

/* Environment prefixes that make any program execute something else or read
 * configuration that can: they cancel read-only whatever the program. A name
 * ending in '_' matches every name it begins. */
static const char *const pdk_ro_env_cancel[] = {
    "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_SSH_COMMAND", "GIT_SSH",
    "GIT_EXTERNAL_DIFF", "GIT_DIR", "GIT_EXEC_PATH", "GIT_PAGER", "GIT_EDITOR",
    "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "LESSOPEN", "LESSCLOSE", "LESSKEY",
    "TAR_OPTIONS", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "LD_PRELOAD", "BASH_ENV", "ENV",
    "PYTHONSTARTUP", "PERL5OPT", "NODE_OPTIONS", "RUSTUP_TOOLCHAIN", "CARGO_HOME",
};
