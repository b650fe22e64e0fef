/* policy_lists.h - the program lists behind the policy's name table: the shipped
 * risk rules (with the programs each applies to) and the program families. */
#ifndef PDK_POLICY_LISTS_H
#define PDK_POLICY_LISTS_H

#include "policy_int.h"

/* Read by tools/classes-gen, which folds these lists and the read-only table into
 * the constant table of src/policy/class_table.h, and by src/policy/policy_data.c, which
 * looks names up in it: both hash and probe the same way, through here. */
#define PDK_CLASS_SLOTS 4096

static inline size_t pdk_class_hash(const char *s, size_t len)
{
	size_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h & (PDK_CLASS_SLOTS - 1);
}

/* The slot holding name, or the empty slot where it would go. */
static inline size_t pdk_class_slot(const unsigned short *slots,
				    const struct pdk_prog_class *classes, const char *name,
				    size_t len)
{
	size_t h = pdk_class_hash(name, len);

	while (slots[h] && !(classes[slots[h] - 1].len == len &&
			     !memcmp(classes[slots[h] - 1].name, name, len)))
		h = (h + 1) & (PDK_CLASS_SLOTS - 1);
	return h;
}

#define P(...) ((const char *const[]){__VA_ARGS__, NULL})
#define GIT    "^git\\s+(?:\\S+\\s+)*?"

/* Each pattern is matched against the program's words joined by spaces (the
 * program by its bare name), and against the command as written. */
static const struct pdk_shipped_rule shipped[] = {
    {"rm-recursive", P("rm"),
     "^rm\\s+(?:\\S+\\s+)*?(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(?:\\s|$)", PDK_RISK_MODERATE,
     "removes whole directory trees (they go to the trash)"},
    {"git-push-force", P("git"),
     GIT "push\\s(?:.*\\s)?(?:--force(?:-with-lease|-if-includes)?(?:=\\S*)?|-[a-zA-Z]*f[a-zA-Z]*|"
	 "\\+\\S+)(?:\\s|$)",
     PDK_RISK_DANGEROUS, "rewrites history on the remote; others' commits can be lost"},
    {"git-reset-hard", P("git"), GIT "reset\\s(?:.*\\s)?--(?:hard|merge|keep)(?:\\s|$)",
     PDK_RISK_DANGEROUS, "throws away uncommitted changes in the work tree"},
    {"git-clean", P("git"), GIT "clean\\s(?:.*\\s)?(?:-[a-zA-Z]*f|--force)", PDK_RISK_DANGEROUS,
     "deletes untracked files for good (not to the trash)"},
    {"git-checkout-discard", P("git"), GIT "checkout\\s(?:.*\\s)?(?:--|-f|--force|\\.)(?:\\s|$)",
     PDK_RISK_MODERATE, "overwrites uncommitted changes in the work tree"},
    /* --staged alone only unstages: the work tree keeps every change */
    {"git-restore", P("git"),
     GIT "restore(?:\\s|$)(?!(?=(?:.*\\s)?(?:--staged|-[a-zA-Z]*S[a-zA-Z]*)(?:\\s|$))"
	 "(?!(?:.*\\s)?(?:--worktree|-[a-zA-Z]*W[a-zA-Z]*)(?:\\s|$)))",
     PDK_RISK_MODERATE, "overwrites uncommitted changes in the work tree"},
    {"git-branch-delete", P("git"), GIT "branch\\s(?:.*\\s)?(?:-[a-zA-Z]*[dD]|--delete)(?:\\s|$)",
     PDK_RISK_MODERATE, "deletes a branch"},
    {"git-stash-drop", P("git"), GIT "stash\\s+(?:drop|clear)(?:\\s|$)", PDK_RISK_MODERATE,
     "throws away stashed changes"},
    /* What the reflog and unreachable objects keep is how a lost commit comes back: these
     * drop it (reflog entries, refs, unreachable objects at once, a dirty worktree). */
    {"git-history-drop", P("git"),
     GIT "(?:reflog\\s+(?:expire|delete)|gc\\s(?:.*\\s)?--prune(?!=never(?:\\s|$))(?:=\\S*)?|"
	 "(?<!remote\\s)(?<!worktree\\s)prune(?!(?:\\s.*)?\\s(?:-n|--dry-run)(?:\\s|$))|"
	 "(?:update-ref|symbolic-ref)\\s(?:.*\\s)?(?:-d|--delete)|tag\\s(?:.*\\s)?(?:-d|--delete)|"
	 "worktree\\s+remove\\s(?:.*\\s)?(?:-f|--force)|"
	 "repack(?=(?:\\s.*)?\\s-[a-zA-Z]*a)(?=(?:\\s.*)?\\s-[a-zA-Z]*d)\\s.*)(?:\\s|$)",
     PDK_RISK_MODERATE, "drops what a lost commit is recovered from (reflog, refs, unreachable "
			"objects) or a worktree's uncommitted changes"},
    {"git-commit-amend", P("git"), GIT "commit\\s(?:.*\\s)?--amend(?:\\s|$)", PDK_RISK_MODERATE,
     "rewrites the last commit"},
    {"git-history-rewrite", P("git"), GIT "(?:filter-branch|filter-repo|rebase)(?:\\s|$)",
     PDK_RISK_MODERATE, "rewrites commit history"},
    {"dd", P("dd"), "^dd(?:\\s|$)", PDK_RISK_DANGEROUS, "writes raw blocks to a file or device"},
    {"mkfs", P("mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "parted", "sgdisk"),
     "^(?:mkfs(?:\\.\\S+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|parted|sgdisk)(?:\\s|$)",
     PDK_RISK_DANGEROUS, "formats or repartitions a disk"},
    {"shred", P("shred"), "^shred(?:\\s|$)", PDK_RISK_DANGEROUS,
     "overwrites files so they cannot come back, past the trash"},
    {"truncate", P("truncate"), "^truncate(?:\\s|$)", PDK_RISK_MODERATE,
     "cuts files to a size; what is cut is gone"},
    {"chmod-recursive", P("chmod", "chown", "chgrp"),
     "^(?:chmod|chown|chgrp)\\s+(?:\\S+\\s+)*?(?:-[a-zA-Z]*R[a-zA-Z]*|--recursive)(?:\\s|$)",
     PDK_RISK_MODERATE, "changes permissions or owners of a whole tree"},
    {"docker-privileged", P("docker", "podman"),
     "^(?:docker|podman)\\s+(?:.*\\s)?(?:run|create|exec)\\s(?:.*\\s)?(?:--privileged|--pid=host|--"
     "net(?:work)?=host|-v\\s+/:|--volume[= ]/:)",
     PDK_RISK_DANGEROUS, "a privileged or host-sharing container escapes confinement"},
    {"docker-remove", P("docker", "podman"),
     "^(?:docker|podman)\\s+(?:.*\\s)?(?:(?:system|image|volume|container|network|builder)\\s+(?:"
     "prune|rm)|rm|rmi)(?:\\s|$)",
     PDK_RISK_MODERATE, "removes containers, images or volumes"},
    {"publish", P("npm", "pnpm", "yarn", "bun", "cargo", "twine", "gem", "poetry", "gh"),
     "^(?:(?:npm|pnpm|yarn|bun|cargo|poetry)\\s+(?:.*\\s)?publish|twine\\s+upload|gem\\s+push|"
     "gh\\s+release\\s+create)(?:\\s|$)",
     PDK_RISK_DANGEROUS, "publishes a package or release for everyone"},
    {"kubectl-delete", P("kubectl", "helm"),
     "^(?:kubectl\\s+(?:.*\\s)?(?:delete|drain)|helm\\s+(?:.*\\s)?(?:uninstall|delete))(?:\\s|$)",
     PDK_RISK_DANGEROUS, "deletes cluster resources"},
    {"kubectl-change", P("kubectl", "helm"),
     "^(?:kubectl\\s+(?:.*\\s)?(?:apply|create|replace|patch|scale|edit|cordon|rollout\\s+restart|"
     "set)|helm\\s+(?:.*\\s)?(?:install|upgrade|rollback))(?:\\s|$)",
     PDK_RISK_MODERATE, "changes cluster resources"},
    {"terraform", P("terraform", "tofu"),
     "^(?:terraform|tofu)\\s+(?:.*\\s)?(?:destroy|apply)(?:\\s|$)", PDK_RISK_DANGEROUS,
     "changes or destroys real infrastructure"},
    {"rsync-delete", P("rsync"), "^rsync\\s(?:.*\\s)?--(?:delete\\S*|remove-source-files)(?:\\s|$)",
     PDK_RISK_DANGEROUS, "deletes files at the destination, past the trash"},
    {"crontab", P("crontab"), "^crontab(?:\\s|$)", PDK_RISK_MODERATE, "changes scheduled jobs"},
    {"systemctl", P("systemctl"),
     "^systemctl\\s+(?:.*\\s)?(?:start|stop|restart|reload|enable|disable|mask|kill|isolate)(?:\\s|"
     "$)",
     PDK_RISK_MODERATE, "changes running services"},
    {"firewall", P("iptables", "ip6tables", "nft", "ufw"),
     "^(?:iptables|ip6tables|nft|ufw)(?:\\s|$)", PDK_RISK_MODERATE, "changes firewall rules"},
    {"sql-drop", P("psql", "mysql", "mariadb", "sqlite3", "sqlcmd", "duckdb", "clickhouse-client"),
     "(?i)\\b(?:drop\\s+(?:table|database|schema)|truncate\\s+table)\\b", PDK_RISK_DANGEROUS,
     "drops database objects"},
};
#undef GIT
_Static_assert(PDK_ARRAY_SIZE(shipped) <= 64, "rule bits");

/* Only the generator and the table's test read the families: everything else
 * finds a program's kind bits through pdk_policy_classify(). */
#ifdef PDK_WANT_KINDS
static const struct {
	const char *const *names;
	unsigned kind;
} kinds[] = {
    {P("sh", "bash", "dash", "zsh"), PDK_PK_SHELL | PDK_PK_INTERPRETER},
    {P("find"), PDK_PK_FIND},
    {P("eval"), PDK_PK_EVAL},
    {P("source", "."), PDK_PK_SOURCE},
    {P("env", "nice", "ionice", "nohup", "timeout", "time", "stdbuf", "setsid", "flock", "chrt",
       "taskset", "command", "builtin", "exec", "xargs", "parallel", "busybox", "toybox"),
     PDK_PK_WRAPPER},
    {P("sudo", "doas", "su", "pkexec", "run0", "sudoedit"), PDK_PK_PRIVILEGE},
    {P("shutdown", "reboot", "halt", "poweroff", "telinit"), PDK_PK_DENIED},
    {P("curl", "wget", "fetch", "aria2c", "http", "xh"), PDK_PK_DOWNLOADER},
    {P("ksh", "mksh", "fish", "python", "python3", "perl", "ruby", "node", "php", "lua"),
     PDK_PK_INTERPRETER},
    {P("chokidar", "chokidar-cli", "nodemon", "onchange", "watchexec", "entr", "watch", "tsc-watch",
       "watchify", "cargo-watch", "cargo", "npm", "pnpm", "yarn", "bun", "npx", "pnpx", "bunx"),
     PDK_PK_WATCHER},
    {P("export", "declare", "typeset", "local", "readonly", "env"), PDK_PK_DECLARE},
    {P("read", "mapfile", "readarray", "getopts", "unset", "printf", "export", "declare",
       "typeset", "local"),
     PDK_PK_SETVAR},
    {P("alias", "enable", "hash", "trap"), PDK_PK_INDIRECT},
};
#endif
#undef P

#endif
