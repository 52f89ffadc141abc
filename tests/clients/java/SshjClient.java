// One sshj connection (com.hierynomus:sshj). Args: HOST PORT: it connects and stops once the key exchange has
// begun (what `sshbench clients record` reads).
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.transport.verification.PromiscuousVerifier;

public class SshjClient {
    public static void main(String[] args) throws Exception {
        SSHClient client = new SSHClient();
        client.addHostKeyVerifier(new PromiscuousVerifier());
        client.setConnectTimeout(20000);
        client.setTimeout(20000);
        try {
            client.connect(args[0], Integer.parseInt(args[1]));
        } catch (Exception e) {
            System.err.println(e);
        } finally {
            client.close();
        }
    }
}
