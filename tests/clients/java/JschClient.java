// One JSch connection (com.jcraft:jsch 0.1.55, or the maintained fork com.github.mwiede:jsch: same API).
// Args: HOST PORT [USER KEYFILE COMMAND]. Without a key it connects and stops after the key exchange starts
// (what `sshbench clients record` reads); with one it logs in, runs COMMAND, prints its output, exits 0.
import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.Session;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;

public class JschClient {
    public static void main(String[] args) throws Exception {
        JSch jsch = new JSch();
        String user = args.length > 2 ? args[2] : "x";
        if (args.length > 3) {
            jsch.addIdentity(args[3]);
        }
        Session session = jsch.getSession(user, args[0], Integer.parseInt(args[1]));
        session.setConfig("StrictHostKeyChecking", "no");
        session.setConfig("PreferredAuthentications", "publickey");
        try {
            session.connect(20000);
        } catch (Exception e) {
            System.err.println(e);
            System.exit(1);
        }
        if (args.length > 4) {
            ChannelExec channel = (ChannelExec) session.openChannel("exec");
            channel.setCommand(args[4]);
            InputStream out = channel.getInputStream();
            channel.connect(20000);
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            for (int n; (n = out.read(buffer)) > 0; ) {
                read.write(buffer, 0, n);
            }
            System.out.print(read.toString("UTF-8"));
            channel.disconnect();
        }
        session.disconnect();
    }
}
