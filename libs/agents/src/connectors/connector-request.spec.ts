import { checkConfirmationCondition, evaluateConfirmationCondition } from './confirmation-condition.js';
import { buildConnectorRequest } from './connector-executor.js';
import type { Connector, ConnectorAction } from './connector.entity.js';
import { globMatches, toolNameOf } from './tool-name.js';

const connector = { baseUrl: 'http://oa.internal/api', headers: {} } as unknown as Connector;
const action = (method: string, path: string) => ({ method, path }) as ConnectorAction;

describe('connector requests', () => {
  it('fills path params from args and sends the rest as JSON body (query for GET)', () => {
    expect(buildConnectorRequest(connector, action('POST', '/purchases/{id}/pay'), { id: 'PO 1', amount: 5 })).toEqual({
      method: 'POST',
      url: 'http://oa.internal/api/purchases/PO%201/pay',
      body: '{"amount":5}',
    });
    expect(buildConnectorRequest(connector, action('GET', '/purchases'), { status: 'open', tags: ['a'] }).url).toBe(
      'http://oa.internal/api/purchases?status=open&tags=%5B%22a%22%5D',
    );
    expect(() => buildConnectorRequest(connector, action('GET', '/purchases/{id}'), {})).toThrow(
      'missing path argument: id',
    );
  });

  it('names tools and matches globs', () => {
    expect(toolNameOf('My-OA', 'Pay.Now')).toBe('my_oa__pay_now');
    expect(globMatches('oa__*', 'oa__purchase_pay')).toBe(true);
    expect(globMatches('oa__*', 'crm__find')).toBe(false);
    expect(globMatches('oa__get_purchase', 'oa__get_purchase')).toBe(true);
  });

  it('checks and evaluates requires_confirmation_when, failing closed', () => {
    expect(checkConfirmationCondition('args.amount > 50000')).toBeNull();
    expect(checkConfirmationCondition('args.amount > > 1')).toMatch(/./);
    expect(checkConfirmationCondition('args.amount + 1')).toMatch(/must evaluate to a bool/);
    expect(evaluateConfirmationCondition('args.amount > 50000', { amount: 60000 })).toBe(true);
    expect(evaluateConfirmationCondition('args.amount > 50000', { amount: 1200 })).toBe(false);
    expect(evaluateConfirmationCondition('args.amount > 50000', {})).toBe(true);
    expect(evaluateConfirmationCondition('args.amount > 50000', { amount: 'lots' })).toBe(true);
  });
});
