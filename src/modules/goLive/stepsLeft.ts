/** What a go-live leaves to do by hand, in the order of docs/going-live.md. */
export function stepsLeftByHand(
  made: {
    liveAccount: { id: number };
    webhookEndpoints: readonly { endpoint: { id: number; url: string } }[];
  },
  deployment: { publicUrl: string | undefined; portalSlug: string | null },
): string[] {
  const id = made.liveAccount.id;
  const steps = [
    `Keep live account ${id}'s API key where your systems read it: it is shown once ` +
      `(another: billing key create --account ${id}).`,
    `Add a live gateway with its live keys and make it primary: billing gateway add --account ${id} ` +
      '--type paystack|stripe|netcash --name NAME --primary --settings-file KEYS.json (docs/gateways/paystack.md, ' +
      'docs/gateways/stripe.md, docs/gateways/netcash.md); the test gateway never collects on a live account.',
    "Set the provider's webhook URL to the new gateway's (billing gateway list --account " +
      `${id} --json shows its GatewayToken) in the provider's live dashboard.`,
  ];
  for (const { endpoint } of made.webhookEndpoints) {
    steps.push(
      `Confirm webhook endpoint ${endpoint.id} (${endpoint.url}): give its receiver the new signing secret, then ` +
        `PUT /v1/webhookendpoints/${endpoint.id} with {"Status":"enabled"}.`,
    );
  }
  if (!deployment.publicUrl?.startsWith('https://')) {
    steps.push('Set PUBLIC_URL to the https address customers reach the service at, on every process.');
  }
  if (deployment.portalSlug !== null) {
    steps.push(
      `Give the live account a portal address of its own (PortalSlug in PUT /v1/account): ` +
        `"${deployment.portalSlug}" stays the test account's.`,
    );
  }
  steps.push(
    `Bring in your customers and have them give their payment methods through the live gateway: the test ` +
      "account's customers, cards and invoices stay behind.",
    `Run billing doctor --account ${id} until it finds nothing missing.`,
  );
  return steps;
}
