import { spawn } from 'node:child_process';

export interface CommandRun {
  /** Absolute path of the executable (already resolved inside HOOKS_DIR). */
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: string;
  /** Aborting kills the whole process group. */
  signal: AbortSignal;
  maxStdoutBytes: number;
  maxStderrBytes: number;
}

export interface CommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a hook command without a shell, in its own process group. The group is killed with SIGKILL when the
 * signal aborts (timeout, cancelled run), when stdout passes its cap, and after the command exits (so nothing it
 * started in the background outlives the hook). Rejects on spawn failure, abort or oversized output.
 */
/** Why the signal aborted, as an Error (timeouts and cancellations abort with one; anything else is wrapped). */
const abortError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('hook command aborted');

export function runCommand(run: CommandRun): Promise<CommandExit> {
  return new Promise<CommandExit>((resolve, reject) => {
    if (run.signal.aborted) {
      reject(abortError(run.signal));
      return;
    }
    const child = spawn(run.file, run.args, {
      cwd: run.cwd,
      env: run.env,
      shell: false,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let failure: Error | undefined;
    let exited = false;

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const fail = (err: Error) => {
      failure ??= err;
      killGroup();
    };
    const onAbort = () => fail(abortError(run.signal));
    run.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > run.maxStdoutBytes) {
        fail(new Error(`stdout exceeded ${run.maxStdoutBytes} bytes`));
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderrBytes >= run.maxStderrBytes) return;
      stderr.push(chunk.subarray(0, run.maxStderrBytes - stderrBytes));
      stderrBytes += chunk.length;
    });
    // The command may exit without reading its input; that is its business, not an error.
    child.stdin.on('error', () => undefined);
    child.on('error', (err) => {
      const error = new Error(`could not start ${run.file}: ${err.message}`);
      fail(error);
      if (child.pid === undefined) {
        run.signal.removeEventListener('abort', onAbort);
        reject(failure ?? error);
      }
    });
    child.on('exit', () => {
      exited = true;
      killGroup();
    });
    child.on('close', (code, signal) => {
      run.signal.removeEventListener('abort', onAbort);
      if (!exited) killGroup();
      if (failure) {
        reject(failure);
        return;
      }
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    child.stdin.end(run.stdin);
  });
}
