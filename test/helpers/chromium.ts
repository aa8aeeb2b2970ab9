// Debian's Chromium, as every browser test launches it (CONTRIBUTING.md, "Tests"): CHROMIUM_PATH for another build.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and talking to nothing but the test's own servers. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
