// The service's working directory when it is ~: a relative path systemd finds from it is not
// worked out by the tools beside the service (check, the doctor, `edgeblocks user`, the installer's
// reader of the unit), which say so in one message. It imports nothing: scripts/unit-environment.mjs loads it from dist.

/**
 * Why a relative path the service is given (`what`: where it is given) is not worked out:
 * systemd finds it from a WorkingDirectory= of ~, the home of User=, which is not read here.
 */
export function homeWorkingDirectory(what: string): string {
  return `${what} and the unit's WorkingDirectory= is one edgeblocks does not work out (~): write an absolute path there (sudo systemctl edit edgeblocks)`;
}
