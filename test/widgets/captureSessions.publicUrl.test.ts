import { describe, expect, it } from 'vitest';
import { useTestService } from '../helpers/testService.ts';
import { createSession } from './fixtures.ts';

// docs/operations.md, "The capture widget": behind a proxy, PUBLIC_URL is where browsers find the loader.

const service = useTestService({ env: { PUBLIC_URL: 'https://billing.example.com' } });

describe('PUBLIC_URL', () => {
  it('is the origin of the loader in a session’s Html, whatever origin the request came to', async () => {
    const session = await createSession(service);
    expect(session.Html).toContain('<script src="https://billing.example.com/widget/v1/capture.js"');
    expect(session.Html).not.toContain(service.url);
  });
});
