import { OnEvent } from '@nestjs/event-emitter';

/**
 * Every in-process bus event (EventEmitter2), by name, with its payload — typed like run events. Each module adds its
 * own events by declaration merging, beside their names:
 *
 *   declare module '@warden/common' { interface BusEvents { 'run.finished': RunFinishedEvent } }
 *
 * so an emit with the wrong payload, a listener expecting another, or a name nobody declared does not compile.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging in each module
export interface BusEvents {}

// Keys are the events' names (strings); `Extract` keeps the name type a string-literal union.
export type BusEventName = Extract<keyof BusEvents, string>;

/** The bus as modules see it: inject with `@Inject(EventEmitter2) bus: Bus`. */
export interface Bus {
  emit<K extends BusEventName>(name: K, payload: BusEvents[K]): boolean;
}

type OnEventOptions = Parameters<typeof OnEvent>[1];

/** `@OnEvent` for a declared bus event: the method's parameter must accept the event's payload. */
export function OnBus<K extends BusEventName>(name: K, options?: OnEventOptions) {
  const decorate = OnEvent(name, options);
  return <H extends (payload: BusEvents[K]) => unknown>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<H>,
  ): void => {
    decorate(target, key, descriptor);
  };
}
