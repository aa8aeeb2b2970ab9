import type { Gateway } from './gateway.service.ts';
import type { GatewayOut } from './gateways.schemas.ts';

export function toGatewayDto(gateway: Gateway): GatewayOut {
  return {
    gatewayID: gateway.id,
    GatewayToken: gateway.token,
    GatewayName: gateway.gatewayName,
    FriendlyName: gateway.friendlyName,
    GatewayType: gateway.type,
    isActive: gateway.isActive,
    isTestMode: gateway.isTestMode,
    isAcceptCC: gateway.acceptsCreditCard,
    isAcceptBankDD: gateway.acceptsBankAccount,
    isEnabled: gateway.isEnabled,
    isPrimary: gateway.isPrimary,
    isManualRecon: gateway.isManualRecon,
  };
}
