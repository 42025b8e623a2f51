/* cmd_verify.h - `nccl-triage verify` (see docs/verify.md).  argv[0] is the
 * command name ("verify"); options follow.  Returns the exit status. */
#ifndef NT_CMD_VERIFY_H
#define NT_CMD_VERIFY_H

int cmd_verify(int argc, char **argv);

#endif
