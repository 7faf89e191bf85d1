// JaasRecorder reads a JAAS login configuration with the JDK's own
// parser (sun.security.provider.ConfigFile, through
// Configuration.getInstance) and prints the named sections, so that
// gozk's parser can be compared with it: "SECTION name" then one line
// per entry "ENTRY class flag" and "OPTION key=value" (keys sorted), or
// "ABSENT name", or a single "ERROR message" when the file is refused.
//
// Usage: java -Dpw=p -Dhome=/home/zk -Dx=X -Dempty= JaasRecorder.java FILE NAME...
import java.io.File;
import java.net.URI;
import java.util.Map;
import java.util.TreeMap;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import java.security.URIParameter;

public class JaasRecorder {
    public static void main(String[] args) throws Exception {
        Configuration cfg;
        try {
            cfg = Configuration.getInstance("JavaLoginConfig", new URIParameter(new File(args[0]).toURI()));
        } catch (Exception e) {
            Throwable t = e;
            while (t.getCause() != null) {
                t = t.getCause();
            }
            System.out.println("ERROR " + t.getMessage().replace("\n", " ").replace("\t", ""));
            return;
        }
        for (int i = 1; i < args.length; i++) {
            AppConfigurationEntry[] entries = cfg.getAppConfigurationEntry(args[i]);
            if (entries == null) {
                System.out.println("ABSENT " + args[i]);
                continue;
            }
            System.out.println("SECTION " + args[i]);
            for (AppConfigurationEntry e : entries) {
                String flag = e.getControlFlag().toString().replace("LoginModuleControlFlag: ", "");
                System.out.println("ENTRY " + e.getLoginModuleName() + " " + flag);
                for (Map.Entry<String, ?> o : new TreeMap<String, Object>(e.getOptions()).entrySet()) {
                    System.out.println("OPTION " + o.getKey() + "=" + escape(String.valueOf(o.getValue())));
                }
            }
        }
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c < 32 || c == '\\') {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
