// Package guard is pathgrant's security core: it decides, without running
// anything, whether an operation on a path or a whole shell command stays
// inside a session's policy. Every hook's first answer and `pathgrant
// check` come from Evaluate.
//
// The promise is sound, not complete. Allow means the guard proved every
// access of the request allowed; anything it cannot prove (a path in a
// variable, program text it cannot read, a command it does not model run
// outside the workspace, a link it cannot follow, nesting too deep) makes
// the request a deny that is never offered for approval. There are two
// verdicts and no third.
//
// The parts, in the order a request meets them:
//
//   - Canonicalisation (Canonicalizer): a requested path becomes the one
//     absolute path the kernel would reach: `~` from the policy's home,
//     symlinks resolved component by component, `..` applied to the
//     resolved parent, components that do not exist yet kept as written.
//     Accesses are judged on that path, so a link cannot lead out unseen.
//   - Operations (Op): the guard reasons about every request as a list of
//     (op, canonical path) accesses: read, write, move, delete, execute.
//   - Shell analysis: a command is parsed as bash (mvdan.cc/sh) and walked
//     statement by statement, tracking the possible working directories
//     (a cd may fail, a branch may not run) and the links and moves made
//     earlier in the line; a table of modelled commands (coreutils, git,
//     find, tar, sed and awk programs, nested `bash -c`, wrappers) says
//     which arguments are files and how each is used. A command outside
//     the table may run only in the workspace with every argument that
//     could name a file inside it.
//   - Decisions (Compiled.judge, decide): each access is judged against
//     the compiled policy, protected paths and members of the protected
//     set (package protected) and blocked writes first so that no root or
//     grant can open them, then the workspace, the read-only roots, the
//     user's grants (Grants); outside all of them a read under an eligible
//     root is denied but eligible for a prompt, and nothing else ever is.
//     The request is allowed only when every access is and nothing was
//     unproven; the decision names the rule and the reason of each
//     access, and the scope an approval would grant.
//
// The guard is pure policy: it reads the file system to resolve paths but
// writes nothing, holds no state between requests and knows nothing of
// sessions or the socket. Confinement (package sandbox) is the boundary
// for what static analysis cannot see, such as a script a command runs.
package guard
