import { createInterface } from 'node:readline';

/**
 * Asks for a secret in the terminal without echoing it (a password must not stay on the
 * screen or in a shell history, which `--password` and environment variables risk).
 */
export function askHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    const output = process.stderr;
    const rl = createInterface({ input, output, terminal: true });
    // readline echoes through _writeToOutput: write the prompt, nothing of what is typed.
    const writable = rl as unknown as { _writeToOutput: (text: string) => void };
    let prompted = false;
    writable._writeToOutput = (text: string) => {
      if (!prompted) {
        output.write(text);
        prompted = true;
      }
    };
    rl.question(prompt, (answer) => {
      output.write('\n');
      rl.close();
      resolve(answer);
    });
    rl.once('SIGINT', () => {
      rl.close();
      output.write('\n');
      reject(new Error('cancelled'));
    });
  });
}
