/**
 * The module walls of docs/architecture.md ("Module order"), checked in CI by `npm run deps`.
 * Type-only imports count (tsPreCompilationDeps): a type is as much a dependency as a value.
 */

/** The domain modules, lowest first: a module imports only modules before it in this list. */
const MODULE_ORDER = [
  'mail',
  'events',
  'gateways',
  'catalogue',
  'auth',
  'customers',
  'mandates',
  'paymentMethods',
  'invoicing',
  'ledger',
  'credits',
  'statements',
  'reports',
  'usage',
  'coupons',
  'subscriptions',
  'entitlements',
  'usageAlerts',
  'retention',
  'collections',
  'batches',
  'widgets',
  'portal',
  'goLive',
];

const COMPOSITION =
  '^src/((app|server|cli|cliAccountSettings|cluster|connectModules|documentWorker)[.]ts$|cli/)';
const TABLES_ASSEMBLY = '^src/storage/schema[.]ts$';
const MODULE_TABLES = '^src/modules/[^/]+/tables[.]ts$';
const FOUNDATION = ['^src/(errors|clock|config|logger|context)[.]ts$', '^src/(security|storage|http|pdf)/'];

const moduleOrder = MODULE_ORDER.slice(0, -1).map((name, i) => ({
  name: `module-order-${name}`,
  comment: `${name} may import only the modules below it: ${MODULE_ORDER.slice(0, i).join(', ') || 'none'}`,
  severity: 'error',
  from: { path: `^src/modules/${name}/` },
  to: { path: `^src/modules/(${MODULE_ORDER.slice(i + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle anywhere, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...moduleOrder,
    {
      name: 'module-api-only',
      comment: 'A module uses another module only through its index.ts, the domain API it chose to export.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index[.]ts$'] },
    },
    {
      name: 'outside-through-index',
      comment:
        "Code outside the modules (engine, read models, flows, composition, benchmarks, tests) uses a module's " +
        'index.ts only; the composition root (src/app.ts) alone registers routes files.',
      severity: 'error',
      from: { path: '^(src|bench|test)/', pathNot: ['^src/modules/', '^src/app[.]ts$', TABLES_ASSEMBLY] },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index[.]ts$' },
    },
    {
      name: 'app-registers-routes-only',
      comment: 'src/app.ts reaches into a module only for its routes file.',
      severity: 'error',
      from: { path: '^src/app[.]ts$' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/[^/]+/index[.]ts$', '^src/modules/[^/]+/[^/]+[.]routes[.]ts$'],
      },
    },
    {
      name: 'routes-only-from-app',
      comment:
        'Routes are registered by src/app.ts; nothing else imports a routes file (index.ts is the domain API).',
      severity: 'error',
      from: { pathNot: '^src/app[.]ts$' },
      to: { path: '[.]routes[.]ts$' },
    },
    {
      name: 'read-models-only-from-routes',
      comment:
        'Read models (src/readModels) combine modules, so they sit above all of them: only HTTP routes (the ' +
        "portal's pages and their page functions, *Page.ts, too) and the layers above use them, never a service.",
      severity: 'error',
      from: {
        path: '^src/(modules|readModels)/',
        pathNot: [
          '[.]routes[.]ts$',
          '[.]pages[.]ts$',
          '^src/modules/portal/[^/]+Page[.]ts$',
          '^src/readModels/',
        ],
      },
      to: { path: '^src/readModels/' },
    },
    {
      name: 'flows-only-from-above',
      comment:
        "Flows (src/flows) call several modules' index.ts in order, in one transaction, so they sit above all of " +
        "them, beside the read models: only HTTP routes, the portal's pages and the layers above (the engine, the " +
        "composition root, benchmarks, tests) use them, never a module's service nor a read model.",
      severity: 'error',
      from: {
        path: '^src/(modules|readModels)/',
        pathNot: ['[.]routes[.]ts$', '[.]pages[.]ts$', '^src/modules/portal/[^/]+Page[.]ts$'],
      },
      to: { path: '^src/flows/' },
    },
    {
      name: 'modules-below-engine',
      comment: 'Modules, read models and flows do not know the billing engine or the composition root.',
      severity: 'error',
      from: { path: '^src/(modules|readModels|flows)/' },
      to: { path: ['^src/billing/', COMPOSITION] },
    },
    {
      name: 'engine-below-composition',
      comment: 'The billing engine is driven by the composition root, never the other way.',
      severity: 'error',
      from: { path: '^src/billing/' },
      to: { path: [COMPOSITION, '^src/readModels/'] },
    },
    {
      name: 'foundation-below-domain',
      comment: 'Context, errors, clock, storage, security and HTTP plumbing know no module.',
      severity: 'error',
      from: { path: FOUNDATION, pathNot: TABLES_ASSEMBLY },
      to: { path: ['^src/(modules|readModels|flows|billing)/', COMPOSITION] },
    },
    {
      name: 'tables-assembled-by-storage',
      comment:
        "Storage's schema.ts assembles Kysely's Database type from each module's tables.ts, and from nothing else " +
        'in a module (docs/architecture.md, "Tables and their owners").',
      severity: 'error',
      from: { path: TABLES_ASSEMBLY },
      to: { path: ['^src/(modules|readModels|flows|billing)/', COMPOSITION], pathNot: MODULE_TABLES },
    },
    {
      name: 'tables-declare-only',
      comment:
        "A module's tables.ts declares column types only: it imports storage's column types and Kysely.",
      severity: 'error',
      from: { path: MODULE_TABLES },
      to: { pathNot: ['^src/storage/columnTypes[.]ts$', '^node_modules/kysely/'] },
    },
    {
      name: 'core-is-pure',
      comment: 'The billing core imports only itself and the error family: no I/O, no clock, no module.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: ['^src/core/', '^src/errors[.]ts$'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
