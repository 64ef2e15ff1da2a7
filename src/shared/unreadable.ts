// Why a file a user names (the config file, the sim config) cannot be read, in words and with
// what to do: the errno alone ("cannot read /etc/edgeblocks: EISDIR") said neither. The one
// wording for the service, `edgeblocks check`, the user command, the doctor and the failsafe.
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';

/** The name of this process's user and primary group (the installer makes the config root:GROUP 0640). */
function whoAmI(): { user: string; group: string } {
  let user = String(process.getuid?.() ?? '?');
  try {
    user = userInfo().username;
  } catch {
    // a uid without a passwd entry: its number
  }
  let group = user;
  try {
    const gid = String(process.getgid?.());
    const line = readFileSync('/etc/group', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[2] === gid);
    if (line) group = line.split(':')[0]!;
  } catch {
    // no group file: the user's name, as a user group has
  }
  return { user, group };
}

/** `cannot read WHAT: CODE (why); what to do`, for the error `e` of reading `file`, a `kind` ("config file"). */
export function unreadableFile(what: string, file: string, e: unknown, kind = 'config file'): string {
  const code = (e as NodeJS.ErrnoException).code;
  const head = `cannot read ${what}: ${code ?? (e as Error).message}`;
  switch (code) {
    case 'ENOENT':
      return `${head} (there is no such file); give the path of the ${kind}`;
    case 'EISDIR':
      return `${head} (it is a directory); give the path of the ${kind}`;
    case 'EACCES':
    case 'EPERM': {
      const { user, group } = whoAmI();
      return `${head} (user ${user} may not read it); fix: sudo chown root:${group} ${file} && sudo chmod 640 ${file}`;
    }
    default:
      return head;
  }
}
