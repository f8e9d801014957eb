import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Injectable,
  NotFoundException,
  Param,
  Post,
  UseGuards,
  type CanActivate,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@warden/auth';
import { AppConfig } from '@warden/common';

/** The demo API answers without a token, so it exists only outside production. */
@Injectable()
class DemoOaEnabledGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}
  canActivate(): boolean {
    if (!this.config.demoOaEnabled) throw new NotFoundException('not found');
    return true;
  }
}

interface Purchase {
  id: string;
  vendor: string;
  amount: number;
  status: 'open' | 'paid';
  paid_with_key?: string;
}

/**
 * A tiny OA (office automation) API served by Warden itself so the seeded demo connector works with no other
 * server. Payments are idempotent on the Idempotency-Key header, as a real payment API would be.
 */
@ApiExcludeController()
@Public()
@UseGuards(DemoOaEnabledGuard)
@Controller('demo-oa')
export class DemoOaController {
  private readonly purchases = new Map<string, Purchase>([
    ['PO-1001', { id: 'PO-1001', vendor: 'Paper & Co', amount: 1200, status: 'open' }],
    ['PO-1002', { id: 'PO-1002', vendor: 'Steelworks Ltd', amount: 68000, status: 'open' }],
  ]);

  @Get('purchases')
  list() {
    return [...this.purchases.values()];
  }

  @Get('purchases/:id')
  get(@Param('id') id: string) {
    const p = this.purchases.get(id);
    if (!p) throw new NotFoundException(`purchase ${id} not found`);
    return p;
  }

  @Post('purchases/:id/pay')
  @HttpCode(200)
  pay(
    @Param('id') id: string,
    @Body() body: { amount?: unknown } | undefined,
    @Headers('idempotency-key') key?: string,
  ) {
    const p = this.purchases.get(id) ?? {
      id,
      vendor: 'unknown',
      amount: Number(body?.amount ?? 0),
      status: 'open' as const,
    };
    if (p.status === 'paid') return { ...p, replayed: p.paid_with_key === key };
    const paid: Purchase = { ...p, amount: Number(body?.amount ?? p.amount), status: 'paid', paid_with_key: key };
    this.purchases.set(id, paid);
    return paid;
  }
}
