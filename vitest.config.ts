import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Stryker's sandboxes (npm run mutate) hold copies of every test file.
    exclude: [...configDefaults.exclude, '.stryker-tmp/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
