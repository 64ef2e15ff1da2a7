// Why a file a user names (the config file, the sim config) cannot be read, in words and with
// what to do: the errno alone ("cannot read /etc/edgeblocks: EISDIR") said neither. The one
// wording for the service, `edgeblocks check`, the user command, the doctor and the failsafe.
import { readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';

/** The service user the installer makes (scripts/install-pi.sh SERVICE_USER); the config is root:edgeblocks 0640. */
const SERVICE_USER = 'edgeblocks';

/** The name of group `gid`, or its number. */
function groupName(gid: number | undefined): string {
  try {
    const line = readFileSync('/etc/group', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[2] === String(gid));
    if (line) return line.split(':')[0]!;
  } catch {
    // no group file: the number
  }
  return String(gid);
}

/** The name of this process's user and primary group. */
function whoAmI(): { user: string; group: string } {
  let user = String(process.getuid?.() ?? '?');
  try {
    user = userInfo().username;
  } catch {
    // a uid without a passwd entry: its number
  }
  return { user, group: groupName(process.getgid?.()) };
}

/**
 * What to do about a file this process may not read. The file's group is whom it is for: the
 * service's own group (or the service itself reading) gets the chown/chmod that lets it read;
 * anyone else (`pi` running the doctor or `edgeblocks user` on the installed root:edgeblocks
 * config) is told to use sudo, since a chown to their group would take the file from the service.
 */
function accessFix(file: string): string {
  const { user, group } = whoAmI();
  let fileGroup: string | undefined;
  try {
    fileGroup = groupName(statSync(file).gid);
  } catch {
    // not even stat: the directory is closed to us
  }
  if (user === SERVICE_USER || fileGroup === group)
    return `(user ${user} may not read it); fix: sudo chown root:${group} ${file} && sudo chmod 640 ${file}`;
  return `(user ${user} may not read it${fileGroup ? `; it is for group ${fileGroup}` : ''}); run the command with sudo`;
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
    case 'EPERM':
      return `${head} ${accessFix(file)}`;
    default:
      return head;
  }
}
