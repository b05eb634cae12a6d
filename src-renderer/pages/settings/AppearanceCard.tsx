// Light, dark, or as the operating system says: kept in this browser, not on the server, so it
// works before the gateway answers and each window may differ.
import { SegmentedControl } from '../../components/SegmentedControl';
import { useThemeStore, type ThemeChoice } from '../../stores/theme-store';

export function AppearanceCard() {
  const theme = useThemeStore((state) => state.theme);
  const setTheme = useThemeStore((state) => state.setTheme);
  return (
    <section className="card appearance-card" aria-labelledby="appearance-heading">
      <h2 id="appearance-heading" className="card-title">
        Appearance
      </h2>
      <SegmentedControl<ThemeChoice>
        label="Theme"
        value={theme}
        onChange={setTheme}
        options={[
          { value: 'system', label: 'System' },
          { value: 'light', label: 'Light' },
          { value: 'dark', label: 'Dark' },
        ]}
      />
    </section>
  );
}
