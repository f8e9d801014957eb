import { AppConfig } from '@warden/common';
import { createApp } from './bootstrap.js';
import { DemoSeeder } from './demo/demo-seeder.js';
import { drainOnStopSignals } from './drain-gate.js';
import { startBanner } from './start-banner.js';

try {
  const app = await createApp();
  // Registered after Nest's shutdown hooks: both run on the same signal, before any further request is read.
  drainOnStopSignals();
  const config = app.get(AppConfig);
  await app.listen(config.port, config.host);
  if (config.seedDemo) await app.get(DemoSeeder).seedAndPrint();
  process.stdout.write(`${startBanner(config)}\n`);
} catch (err) {
  // Configuration errors name the bad variable; print them plainly and stop.
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
