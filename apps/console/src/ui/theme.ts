import {
  createTheme,
  DEFAULT_THEME,
  Loader,
  Notification,
  type CSSVariablesResolver,
  type MantineColorsTuple,
} from '@mantine/core';

/**
 * Mantine's default palette with the two darkest shades of its light colours darkened until white text on them, and
 * they as text on white or on their own light tint, reach WCAG AA (4.5:1); the other shades are Mantine's.
 */
const DARKER: Record<string, [string, string]> = {
  cyan: ['#0b7e91', '#0b7184'],
  teal: ['#08835e', '#077655'],
  green: ['#278338', '#257535'],
  lime: ['#4e800b', '#48730a'],
  yellow: ['#a86200', '#9f5200'],
  orange: ['#c54c0a', '#b63c0d'],
};

const colors = Object.fromEntries(
  Object.entries(DARKER).map(([name, [eight, nine]]) => {
    const base = DEFAULT_THEME.colors[name];
    return [name, [...base.slice(0, 8), eight, nine] as unknown as MantineColorsTuple];
  }),
);

/** Dimmed text in gray 7 (8.2:1 on white) instead of gray 6 (3.3:1); error text in red 8 (4.5:1). */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-8)',
  },
  dark: {},
});

/**
 * The console's theme: filled buttons, badges and coloured text use shade 8 (all AA against white), light variants
 * use shade 9 on shade 1. Toasts' close buttons are icons: a screen reader needs their name. A loader is a progress
 * bar (its label names what loads; a name on a role-less span is prohibited ARIA, axe's aria-prohibited-attr).
 */
export const theme = createTheme({
  primaryShade: { light: 8, dark: 8 },
  colors,
  components: {
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Dismiss' } } }),
    Loader: Loader.extend({ defaultProps: { role: 'progressbar' } }),
  },
});
